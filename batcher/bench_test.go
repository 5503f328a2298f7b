package batcher

import (
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
)

// BenchmarkBatcher pushes b.N 64-byte messages from several concurrent senders
// through one batcher over loopback TCP, with a reader draining the socket, for
// the batchDelayUs values the reference explores (PROTOCOL.md section 9.1).
func BenchmarkBatcher(b *testing.B) {
	for _, us := range []int{0, 50, 150} {
		b.Run(fmt.Sprintf("batchDelayUs=%d", us), func(b *testing.B) {
			benchBatcher(b, time.Duration(us)*time.Microsecond)
		})
	}
}

func benchBatcher(b *testing.B, batchDelay time.Duration) {
	const (
		senders   = 8
		pad       = 52 // 12-byte header + 52 = 64-byte frames
		frameSize = 12 + pad
	)
	cli, srv := tcpPair(b) // the batcher gets the raw conn: no counting overhead
	want := int64(b.N) * frameSize
	drained := make(chan error, 1)
	go func() {
		n, err := io.CopyN(io.Discard, srv, want)
		if n == want {
			err = nil
		}
		drained <- err
	}()
	bt := New[testMsg](cli.Conn, encodeTest, Options{
		BatchDelay:     batchDelay,
		WriteTimeout:   10 * time.Second,
		EnqueueTimeout: 10 * time.Second,
	}, nil)

	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for s := range senders {
		n := b.N / senders
		if s < b.N%senders {
			n++
		}
		wg.Go(func() {
			for i := range n {
				if err := bt.Send(testMsg{Sender: uint32(s), Seq: uint32(i), Pad: pad}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case err := <-drained:
		if err != nil {
			b.Fatal(err)
		}
	case <-bt.Done():
		b.Fatal(bt.Err())
	}
	elapsed := time.Since(start)
	b.StopTimer()

	if err := bt.Close(); err != nil {
		b.Fatal(err)
	}
	st := bt.Stats()
	if st.Messages != uint64(b.N) {
		b.Fatalf("wrote %d of %d messages", st.Messages, b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(float64(st.Batches)/float64(st.Messages), "writes/msg")
}

// BenchmarkBatcherIdle sends one message at a time and waits for it to arrive:
// an idle link. With the adaptive rule the batch delay must not show up in
// ns/op (one round of the loop = one message's one-way latency).
func BenchmarkBatcherIdle(b *testing.B) {
	for _, us := range []int{0, 150} {
		b.Run(fmt.Sprintf("batchDelayUs=%d", us), func(b *testing.B) {
			cli, srv := tcpPair(b)
			r := startReader(srv)
			bt := New[testMsg](cli.Conn, encodeTest, Options{BatchDelay: time.Duration(us) * time.Microsecond}, nil)
			b.ResetTimer()
			for i := range b.N {
				if err := bt.Send(testMsg{Seq: uint32(i)}); err != nil {
					b.Fatal(err)
				}
				select {
				case <-r.out:
				case <-r.done:
					b.Fatal(r.err)
				}
			}
			b.StopTimer()
			if err := bt.Close(); err != nil {
				b.Fatal(err)
			}
			st := bt.Stats()
			b.ReportMetric(float64(st.Batches)/float64(st.Messages), "writes/msg")
		})
	}
}
