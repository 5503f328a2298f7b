package client_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"swiftpaxos/client"
	curpho "swiftpaxos/curp-ho"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/kvs"
)

// session opens a session of protocol against a fresh local cluster and
// returns it with a context and the function that tears both down.
func session(protocol string) (*client.Session, context.Context, func(), error) {
	cfg, stop, err := startLocalCluster(protocol)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	policy := curpht.NewClientPolicy()
	if protocol == curpho.Name {
		policy = curpho.NewClientPolicy()
	}
	s, err := client.Dial(ctx, client.SessionOptions{Config: cfg, Policy: policy})
	if err != nil {
		cancel()
		stop()
		return nil, nil, nil, err
	}
	return s, ctx, func() { s.Close(); cancel(); stop() }, nil
}

// A strong GET is linearizable: it sees every write that completed
// before it began, whichever session made it. A weak GET is causal: it
// sees at least the session's own writes and what they depend on. An
// absent key and an empty value differ.
func ExampleSession_Get() {
	s, ctx, done, err := session(curpht.Name)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	if _, err := s.Put(ctx, []byte("greeting"), []byte("hello"), client.Strong); err != nil {
		fmt.Println(err)
		return
	}
	_, _ = s.Put(ctx, []byte("empty"), nil, client.Strong)
	for _, level := range []client.Level{client.Strong, client.Weak} {
		g, err := s.Get(ctx, []byte("greeting"), level)
		fmt.Printf("%v get: %q found %v, err %v\n", level, g.Value, g.Found, err)
	}
	e, _ := s.Get(ctx, []byte("empty"), client.Strong)
	a, _ := s.Get(ctx, []byte("absent"), client.Strong)
	fmt.Printf("empty: found %v; absent: found %v, version %d\n", e.Found, a.Found, a.Version)
	// Output:
	// strong get: "hello" found true, err <nil>
	// weak get: "hello" found true, err <nil>
	// empty: found true; absent: found false, version 0
}

// A strong PUT returns once it is durable and ordered, with its version
// (the slot of the write). A weak PUT of CURP-HO is acknowledged by the
// nearest replica before the leader orders it, so its version is usually
// not known yet (0; the slot when the leader's commit reached the session
// first). The session still reads its own write at once.
func ExampleSession_Put() {
	s, ctx, done, err := session(curpho.Name)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	p, err := s.Put(ctx, []byte("k"), []byte("strong"), client.Strong)
	fmt.Printf("strong put: version known %v, err %v\n", p.Version > 0, err)
	w, err := s.Put(ctx, []byte("k"), []byte("weak"), client.Weak)
	fmt.Printf("weak put: version 0 or after the strong one %v, err %v\n", w.Version == 0 || w.Version > p.Version, err)
	g, _ := s.Get(ctx, []byte("k"), client.Weak)
	fmt.Printf("weak get: %s\n", g.Value)
	// Output:
	// strong put: version known true, err <nil>
	// weak put: version 0 or after the strong one true, err <nil>
	// weak get: weak
}

// DELETE says whether the key existed, but only when it knows: a CURP-HO
// weak DELETE is acknowledged before it executes, so Known is false and
// Existed means nothing.
func ExampleSession_Delete() {
	s, ctx, done, err := session(curpho.Name)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	_, _ = s.Put(ctx, []byte("a"), []byte("1"), client.Strong)
	_, _ = s.Put(ctx, []byte("b"), []byte("2"), client.Strong)
	d, err := s.Delete(ctx, []byte("a"), client.Strong)
	fmt.Printf("strong delete: known %v, existed %v, err %v\n", d.Known, d.Existed, err)
	d, err = s.Delete(ctx, []byte("b"), client.Weak)
	fmt.Printf("weak delete: known %v, err %v\n", d.Known, err)
	g, _ := s.Get(ctx, []byte("b"), client.Weak)
	fmt.Printf("b found: %v\n", g.Found)
	// Output:
	// strong delete: known true, existed true, err <nil>
	// weak delete: known false, err <nil>
	// b found: false
}

// SCAN returns the keys of [start, end) that hold a value, in key order,
// at most limit of them; More says there are others, and the next page
// starts after the last key returned. An empty end scans to the last key.
func ExampleSession_Scan() {
	s, ctx, done, err := session(curpht.Name)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	for _, k := range []string{"user:1", "user:2", "user:3", "zone:1"} {
		_, _ = s.Put(ctx, []byte(k), []byte("x"), client.Strong)
	}
	start := []byte("user:")
	for page := 1; ; page++ {
		sc, err := s.Scan(ctx, start, []byte("user;"), 2, client.Weak)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, it := range sc.Items {
			fmt.Printf("page %d: %s\n", page, it.Key)
		}
		if !sc.More {
			break
		}
		start = append(sc.Items[len(sc.Items)-1].Key, 0)
	}
	// Output:
	// page 1: user:1
	// page 1: user:2
	// page 2: user:3
}

// CompareAndSwap writes only if the key is as expected (absent, a value,
// or the version of its last write) and returns the key's state either
// way. It runs at the strong level only.
func ExampleSession_CompareAndSwap() {
	s, ctx, done, err := session(curpht.Name)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	c, _ := s.CompareAndSwap(ctx, []byte("lock"), client.ExpectAbsent(), client.SetValue([]byte("alice")))
	fmt.Printf("alice takes the lock: %v\n", c.Applied)
	c, _ = s.CompareAndSwap(ctx, []byte("lock"), client.ExpectAbsent(), client.SetValue([]byte("bob")))
	fmt.Printf("bob takes the lock: %v (held by %s)\n", c.Applied, c.Value)
	c, _ = s.CompareAndSwap(ctx, []byte("lock"), client.ExpectVersion(c.Version), client.DeleteKey())
	fmt.Printf("released at the version read: %v\n", c.Applied)
	// Output:
	// alice takes the lock: true
	// bob takes the lock: false (held by alice)
	// released at the version read: true
}

// Incr adds to a decimal 64-bit integer (an absent key counts as 0) and
// returns the new value; a value that is not an integer changes nothing.
func ExampleSession_Incr() {
	s, ctx, done, err := session(curpht.Name)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	n, err := s.Incr(ctx, []byte("hits"), 1)
	fmt.Println(n, err)
	n, err = s.Incr(ctx, []byte("hits"), -5)
	fmt.Println(n, err)
	_, _ = s.Put(ctx, []byte("name"), []byte("ada"), client.Strong)
	_, err = s.Incr(ctx, []byte("name"), 1)
	fmt.Println(errors.Is(err, kvs.ErrValueNotInteger))
	// Output:
	// 1 <nil>
	// -4 <nil>
	// true
}

// Submit starts operations without waiting; results arrive on
// Completions in the order they complete. Operations in flight together
// are concurrent: wait for one before issuing one that must follow it.
func ExampleSession_Submit() {
	s, ctx, done, err := session(curpht.Name)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	for i := range 3 {
		op := client.Op{Level: client.Strong, Command: kvs.Command{Op: kvs.OpPut, Key: kvs.Key(fmt.Sprintf("k%d", i)), Value: kvs.Value("v")}}
		if err := s.Submit(op); err != nil {
			fmt.Println(err)
			return
		}
	}
	ok := 0
	for range 3 {
		select {
		case r := <-s.Completions():
			if r.Err == nil {
				ok++
			}
		case <-ctx.Done():
			fmt.Println(ctx.Err())
			return
		}
	}
	fmt.Printf("%d puts completed\n", ok)
	// Output:
	// 3 puts completed
}

// What a session refuses before sending anything: a weak CAS or INCR
// (ErrStrongOnly), an empty key or one over the limits
// (kvs.ErrInvalidCommand). A context that ends first gives ErrTimeout;
// the operation may still execute, at most once.
func ExampleSession_Do_errors() {
	s, ctx, done, err := session(curpht.Name)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	_, err = s.Do(ctx, client.Op{Level: client.Weak, Command: kvs.Command{Op: kvs.OpIncr, Key: "n", Delta: 1}})
	fmt.Println(errors.Is(err, client.ErrStrongOnly), errors.Is(err, kvs.ErrInvalidCommand))
	_, err = s.Get(ctx, nil, client.Strong)
	fmt.Println(errors.Is(err, kvs.ErrInvalidCommand))
	ended, cancel := context.WithCancel(ctx)
	cancel()
	_, err = s.Put(ended, []byte("k"), []byte("v"), client.Strong)
	fmt.Println(errors.Is(err, client.ErrTimeout))
	// Output:
	// true true
	// true
	// true
}
