package wire

import (
	"io"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestEachSeesTheEndBehindTheData: the peer's last frame and its FIN
// arrive together, so the read that returns the frame returns short with
// the FIN still queued; Each must still report io.EOF (no new readiness
// would ever announce it), not wait for ever.
func TestEachSeesTheEndBehindTheData(t *testing.T) {
	for range 20 {
		w, c := tcpPair(t)
		_, err := w.Write(AppendFrame(nil, &Sync{Cmd: cmdA}))
		require.NoError(t, err)
		require.NoError(t, w.CloseWrite())
		waitCloseWait(t, c)
		done := make(chan error, 1)
		got := 0
		go func() {
			done <- NewReader(c, 0).Each(func(Message, bool) error { got++; return nil }, nil)
		}()
		select {
		case err := <-done:
			require.Equal(t, io.EOF, err)
			require.Equal(t, 1, got)
		case <-time.After(10 * time.Second):
			t.Fatal("Each waits after the peer's last frame and FIN")
		}
	}
}

// waitCloseWait returns once c has received its peer's FIN (the socket's
// TCP state is CLOSE_WAIT), so that the FIN is queued before Each reads.
func waitCloseWait(t *testing.T, c *net.TCPConn) {
	t.Helper()
	raw, err := c.SyscallConn()
	require.NoError(t, err)
	const closeWait = 8 // TCP_CLOSE_WAIT in linux/tcp_states.h
	deadline := time.Now().Add(10 * time.Second)
	for {
		var state byte
		require.NoError(t, raw.Control(func(fd uintptr) {
			var info [232]byte // struct tcp_info; its first byte is the state
			size := uint32(len(info))
			_, _, errno := syscall.Syscall6(syscall.SYS_GETSOCKOPT, fd, syscall.IPPROTO_TCP, syscall.TCP_INFO,
				uintptr(unsafe.Pointer(&info[0])), uintptr(unsafe.Pointer(&size)), 0)
			if errno == 0 {
				state = info[0]
			}
		}))
		if state == closeWait {
			return
		}
		require.True(t, time.Now().Before(deadline), "the peer's FIN never arrived (state %d)", state)
		runtime.Gosched()
	}
}
