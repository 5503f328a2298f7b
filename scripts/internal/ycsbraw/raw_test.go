package ycsbraw

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRead(t *testing.T) {
	in := Header + "\nUPDATE,1000,40\nREAD,990,7\nTOTAL,1000,40\nREAD,1005,100\n"
	s, err := Read(strings.NewReader(in), "x")
	require.NoError(t, err)
	assert.Equal(t, []string{"UPDATE", "READ", "TOTAL"}, s.Ops)
	assert.Equal(t, []int64{7, 100}, s.LatencyUs["READ"])
	assert.Equal(t, 2, s.Count("READ"))
	assert.Equal(t, 0, s.Count("INSERT"))
	assert.Equal(t, int64(990), s.FirstStartUs)
	assert.Equal(t, int64(1105), s.LastEndUs)

	s, err = Read(strings.NewReader(Header+"\n"), "x")
	require.NoError(t, err)
	assert.Empty(t, s.Ops)
}

func TestReadErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "x: empty"},
		{"op,ts,lat\n", `x: first line "op,ts,lat" is not`},
		{Header + "\nREAD,1,2,3\n", "x:2: 4 fields"},
		{Header + "\nREAD,1,2\n,1,2\n", "x:3: no operation name"},
		{Header + "\nREAD,0,2\n", "x:2: timestamp_us \"0\""},
		{Header + "\nREAD,5,-1\n", "x:2: latency_us \"-1\""},
		{Header + "\nREAD,5,2.5\n", "x:2: latency_us \"2.5\""},
	} {
		_, err := Read(strings.NewReader(c.in), "x")
		require.Error(t, err, c.in)
		assert.Contains(t, err.Error(), c.want, c.in)
	}
}

func TestReadFileGzip(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "a.csv")
	require.NoError(t, os.WriteFile(plain, []byte(Header+"\nREAD,10,3\n"), 0o644))
	gz := filepath.Join(dir, "a.csv.gz")
	f, err := os.Create(gz)
	require.NoError(t, err)
	zw := gzip.NewWriter(f)
	_, err = zw.Write([]byte(Header + "\nREAD,10,3\n"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	for _, p := range []string{plain, gz} {
		s, err := ReadFile(p)
		require.NoError(t, err, p)
		assert.Equal(t, []int64{3}, s.LatencyUs["READ"], p)
	}
	_, err = ReadFile(filepath.Join(dir, "missing.csv"))
	assert.Error(t, err)
	_, err = ReadFile(plain + ".notgz.gz")
	assert.Error(t, err)
	require.NoError(t, os.WriteFile(plain+".bad.gz", []byte("not gzip"), 0o644))
	_, err = ReadFile(plain + ".bad.gz")
	assert.ErrorContains(t, err, "bad.gz")
}
