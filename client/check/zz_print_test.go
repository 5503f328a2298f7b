package check

import "testing"

func TestZZPrint(t *testing.T) {
	h := []Op{
		sPut("a", 1, 7, "a1", 0, 10),
		sPut("b", 1, 7, "b1", 20, 30),
		sGet("c", 1, 7, "a1", 40, 50),
	}
	t.Log(Check(h, nil, Options{VisualizeDir: t.TempDir()}))
	h = []Op{
		sPut("a", 1, 7, "a1", 0, 10),
		sPut("b", 1, 7, "b1", 20, 100),
		sGet("c", 1, 7, "b1", 30, 40),
		sGet("d", 1, 7, "a1", 50, 60),
	}
	t.Log(Check(h, nil, Options{}))
}
