package quorum

import "testing"

// TestSizes: the sizes of PROTOCOL.md 1.7 for the group sizes in use, and
// the intersections they exist for.
func TestSizes(t *testing.T) {
	for _, tc := range []struct{ n, f, m, q, r int }{
		{3, 1, 2, 3, 2},
		{5, 2, 3, 4, 2},
		{7, 3, 4, 6, 3},
		{9, 4, 5, 7, 3},
	} {
		if F(tc.n) != tc.f || Majority(tc.n) != tc.m || Super(tc.n) != tc.q || Recovery(tc.n) != tc.r {
			t.Errorf("n=%d: f=%d M=%d Q=%d R=%d, want %d %d %d %d", tc.n,
				F(tc.n), Majority(tc.n), Super(tc.n), Recovery(tc.n), tc.f, tc.m, tc.q, tc.r)
		}
		// Two majorities meet; a super-quorum meets any majority in at
		// least R replicas.
		if 2*Majority(tc.n) <= tc.n || Super(tc.n)+Majority(tc.n)-tc.n < Recovery(tc.n) {
			t.Errorf("n=%d: quorums do not intersect as required", tc.n)
		}
	}
}
