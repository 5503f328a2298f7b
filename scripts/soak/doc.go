// Command soak runs every simulation configuration of the suite
// (sim Configs) for both protocols, with seeds counted up from a
// random base, for a given time, and reports every failing seed with the
// command that replays it. scripts/soak.sh is its front end; it is not part
// of CI. A run fails when it does not finish and settle, or when the
// checker's verdict is not OK (a violation or an undecided check).
package main
