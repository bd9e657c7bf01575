package dev.fencedlock.testkit.junit;

import java.time.Duration;
import java.util.Map;

/**
 * The servers of one backend for a test class, and the {@code fencedlock.*} settings that reach them.
 *
 * @param properties the settings
 * @param describe for messages, e.g. {@code 3 redis-server processes}
 * @param stop stops the servers
 */
record BackendServers(Map<String, String> properties, String describe, Runnable stop) implements AutoCloseable {
    /** Lease time and restart quarantine given to Redlock clients of fresh nodes; see {@link #redlock}. */
    static final Duration REDLOCK_TEST_LEASE = Duration.ofSeconds(2);

    @Override
    public void close() {
        stop.run();
    }

    /**
     * Redlock settings for {@code nodes}: a node counts toward a quorum only once its uptime has
     * passed the restart quarantine, which in turn bounds the lease time; both are short, so that
     * fresh nodes count within seconds.
     */
    static Map<String, String> redlock(String nodes) {
        return Map.of(
                "fencedlock.backend",
                "redlock",
                "fencedlock.redlock.nodes",
                nodes,
                "fencedlock.lease-time",
                REDLOCK_TEST_LEASE.toSeconds() + "s",
                "fencedlock.redlock.restart-quarantine",
                REDLOCK_TEST_LEASE.toSeconds() + "s");
    }

    static Map<String, String> zookeeper(String connect) {
        return Map.of("fencedlock.backend", "zookeeper", "fencedlock.zookeeper.connect", connect);
    }
}
