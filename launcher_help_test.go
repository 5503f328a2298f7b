package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLauncherSynopsis checks that the synopsis run-multi-client.sh -h
// prints names every option its parser takes, and that the README shows
// the same synopsis, so that neither drifts from the script.
func TestLauncherSynopsis(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	help, err := exec.Command("bash", "run-multi-client.sh", "-h").Output()
	require.NoError(t, err)
	synopsis, _, ok := strings.Cut(string(help), "\n\n")
	require.True(t, ok, "no blank line after the synopsis in:\n%s", help)

	script, err := os.ReadFile("run-multi-client.sh")
	require.NoError(t, err)
	// The option parser's case patterns: "\t-c)", "\t--kill-leader-at | --kill-follower-at)".
	pattern := regexp.MustCompile(`(?m)^\t(-[-a-z]+(?: \| -[-a-z]+)*)\)`)
	options := 0
	for _, m := range pattern.FindAllStringSubmatch(string(script), -1) {
		for _, opt := range strings.Split(m[1], " | ") {
			if opt == "--help" {
				continue // -h's long form
			}
			options++
			require.Regexp(t, `(\[|\| )`+regexp.QuoteMeta(opt)+`[] ]`, synopsis, "the synopsis of -h lacks %s", opt)
		}
	}
	require.NotZero(t, options, "the option parser was not found in run-multi-client.sh")

	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	require.Contains(t, string(readme), "```\n"+synopsis+"\n```\n", "README.md does not show the synopsis of run-multi-client.sh -h")
}
