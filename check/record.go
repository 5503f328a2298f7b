package check

import (
	"swiftpaxos/kvs"
)

// Record fills the command and result fields of history record base from
// the command a client invoked and, when base.OK, the result it got:
// base carries Session, Seq, Level, InvokeNS, ReturnNS, OK and Path
// (doc.go, "History records"). A weak DELETE whose reply could not know
// whether the key existed (CURP-HO) must then set FoundUnknown; Record
// cannot tell.
func Record(base Op, cmd kvs.Command, res kvs.Result) Op {
	o := base
	o.Key = cmd.Key
	switch cmd.Op {
	case kvs.OpGet:
		o.Kind = Get
	case kvs.OpPut:
		o.Kind, o.Value = Put, string(cmd.Value)
	case kvs.OpDelete:
		o.Kind = Delete
	case kvs.OpCAS:
		o.Kind, o.Value, o.Delete = CAS, string(cmd.Value), cmd.Delete
		o.Expect, o.ExpectValue, o.ExpectVersion = cmd.Expect, string(cmd.ExpectValue), cmd.ExpectVersion
	case kvs.OpIncr:
		o.Kind, o.Delta = Incr, cmd.Delta
	case kvs.OpScan:
		o.Kind, o.End, o.Limit = Scan, cmd.End, cmd.Limit
	}
	if !o.OK {
		return o
	}
	switch o.Kind {
	case Get, CAS, Incr:
		o.Found = res.Found
		if res.Found {
			o.Ret = string(res.Value)
		}
		o.Applied = o.Kind == CAS && res.Applied
		switch res.Err {
		case kvs.ErrNotInteger:
			o.Err = ErrNotInteger
		case kvs.ErrOverflow:
			o.Err = ErrOverflow
		}
	case Delete:
		o.Found = res.Found
	case Scan:
		o.More = res.More
		o.Items = nil // none is nil, as the reader gives it
		for _, it := range res.Items {
			o.Items = append(o.Items, Item{Key: it.Key, Value: string(it.Value)})
		}
	}
	return o
}
