// Command netem puts toxiproxy (github.com/Shopify/toxiproxy/v2, an
// unmodified toxiproxy-server driven through its HTTP API) between the
// processes of a swiftpaxos deployment, as an emulator of the network
// independent of the binary's own (networkDelay, latencyFile):
//
//	netem setup -api HOST:PORT -config CONF -out DIR [-base-port P] [-listen-ip IP]
//	    creates one proxy per (process, replica) pair with latency toxics
//	    from CONF's latency model (listening on the replica's IP, or on IP
//	    when given: the machine toxiproxy runs on, for hosts that reach
//	    each other through it), and writes DIR/ALIAS.conf, the
//	    configuration each process must read (the other replicas'
//	    addresses replaced by its proxies; networkDelay and latencyFile
//	    off). It prints the plan, one line per link.
//	netem plan -config CONF -out DIR [-base-port P] [-listen-ip IP]
//	    the same without a server: the plan and the configurations only.
//	netem cut -api HOST:PORT -config CONF -isolate ALIAS -from WHAT [-mode hold|close]
//	    cuts ALIAS off from the replicas, the clients or all (WHAT): in
//	    hold mode every link between them gets a "partition" toxic that
//	    holds every byte (a latency toxic of an hour), so the connections
//	    stay up and go silent, as TCP connections do across a partition;
//	    in close mode the proxies are disabled (connections closed, new
//	    ones refused).
//	netem cut -api HOST:PORT -config CONF -isolate ALIAS -to OTHER
//	    holds only what ALIAS sends OTHER (hold mode: one direction of one
//	    pair; what OTHER sends ALIAS flows).
//	netem cut -api HOST:PORT -config CONF -isolate ALIAS -deaf
//	    holds what every other replica sends ALIAS (hold mode): ALIAS
//	    still sends to them, and its clients reach it both ways; a
//	    leader cut off so goes on sending heartbeats it never hears
//	    answered (check-quorum, docs/DECISIONS.md 56).
//	netem heal -api HOST:PORT -config CONF -isolate ALIAS -from WHAT|-to OTHER|-deaf
//	    undoes cut: held bytes are delivered in order, proxies re-enabled.
//	netem pairs -config CONF
//	    prints "FROM_IP TO_IP ONE_WAY_MS" for every pair of hosts with a
//	    delay, for kernel netem on hosts that each have their own address
//	    (scripts/netns-cluster.sh netem).
//	netem strip -config CONF
//	    prints CONF with networkDelay and latencyFile commented out, so that
//	    a run behind netem adds no built-in delay.
//
// run-multi-client.sh --proxy, --partition-leader-at and --nemesis use it.
package main
