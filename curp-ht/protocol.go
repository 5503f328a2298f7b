package curpht

// Name is the protocol's name in the configuration and on the command line.
const Name = "curpht"
