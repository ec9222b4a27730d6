"""Remote agents: an agent process behind a small versioned HTTP protocol (docs/remote.md).

``protocol`` holds the messages, ``client`` the runner side's calls, ``server`` the reference
server that turns any in-process agent into an HTTP agent."""
