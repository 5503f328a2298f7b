package wire

import (
	"encoding/binary"

	"swiftpaxos/kvs"
)

// The encoders of the store's types: keys, values, commands, results and
// SCAN items (doc.go, "Composite fields").

// appendCommand sends the fields c's operation uses (doc.go), so that a
// command costs what it carries; Validate refuses a command that sets
// another, and such a field is not sent.
func appendCommand(b []byte, c *kvs.Command) []byte {
	b = append(b, byte(c.Op))
	switch c.Op {
	case kvs.OpGet, kvs.OpDelete:
		b = appendKey(b, c.Key)
	case kvs.OpPut:
		b = appendKey(b, c.Key)
		b = appendBytes(b, c.Value)
	case kvs.OpScan:
		b = appendKey(b, c.Key)
		b = appendKey(b, c.End)
		b = binary.AppendUvarint(b, uint64(c.Limit))
	case kvs.OpCAS:
		b = appendKey(b, c.Key)
		b = append(b, byte(c.Expect))
		switch c.Expect {
		case kvs.ExpectValue:
			b = appendBytes(b, c.ExpectValue)
		case kvs.ExpectVersion:
			b = binary.AppendUvarint(b, uint64(c.ExpectVersion))
		}
		b = appendBool(b, c.Delete)
		if !c.Delete {
			b = appendBytes(b, c.Value)
		}
	case kvs.OpIncr:
		b = appendKey(b, c.Key)
		b = binary.AppendVarint(b, c.Delta)
	}
	return b
}

func appendKey(b []byte, k kvs.Key) []byte {
	b = binary.AppendUvarint(b, uint64(len(k)))
	return append(b, k...)
}

// Result flags (doc.go).
const (
	flagFound   = 1
	flagMore    = 2
	flagApplied = 4
	flagsAll    = flagFound | flagMore | flagApplied
)

func appendResult(b []byte, r *kvs.Result) []byte {
	var f byte
	if r.Found {
		f |= flagFound
	}
	if r.More {
		f |= flagMore
	}
	if r.Applied {
		f |= flagApplied
	}
	b = append(b, f, byte(r.Err))
	b = appendBytes(b, r.Value)
	b = binary.AppendUvarint(b, uint64(r.Version))
	return appendItems(b, r.Items)
}

func appendItems(b []byte, items []kvs.Item) []byte {
	b = binary.AppendUvarint(b, uint64(len(items)))
	for i := range items {
		b = appendKey(b, items[i].Key)
		b = appendBytes(b, items[i].Value)
		b = appendBool(b, items[i].Found)
		b = binary.AppendUvarint(b, uint64(items[i].Version))
	}
	return b
}
