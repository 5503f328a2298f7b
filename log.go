package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// newLogger builds the process's logger, writing to path (stderr when
// empty). With a path, a crash (an unhandled panic in any goroutine, or a
// fatal runtime error) is written to that file too, not only to stderr: a
// replica's panic is a bug, and its log is where one looks first.
func newLogger(path string, level zapcore.Level, alias string) (*zap.Logger, func(), error) {
	if path != "" {
		if err := crashOutputTo(path); err != nil {
			return nil, nil, err
		}
	}
	zc := zap.NewProductionConfig()
	zc.Level = zap.NewAtomicLevelAt(level)
	zc.Encoding = "console"
	zc.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	zc.Sampling = nil
	if path != "" {
		zc.OutputPaths = []string{path}
		zc.ErrorOutputPaths = []string{path}
	}
	// Error lines are operational (a peer down, a corrupt file): a stack
	// trace under each only buries them; a panic still prints its own.
	log, err := zc.Build(zap.AddStacktrace(zapcore.DPanicLevel))
	if err != nil {
		return nil, nil, fmt.Errorf("logger: %w", err)
	}
	log = log.With(zap.String("alias", alias))
	return log, func() { _ = log.Sync() }, nil
}

// crashOutputTo makes the runtime print unhandled panics and fatal errors to
// the file at path as well as to stderr, for the rest of the process's
// life. The file is opened for appending, as zap opens it, so the crash
// report follows the last log line.
func crashOutputTo(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	defer f.Close() // SetCrashOutput keeps its own descriptor
	if err := debug.SetCrashOutput(f, debug.CrashOptions{}); err != nil {
		return fmt.Errorf("log: crash output: %w", err)
	}
	return nil
}
