package dev.fencedlock.redlock.internal;

import dev.fencedlock.FencedLock;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.Collection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A redlock client for the tests of this package, built below {@code LockClient} so that tests can
 * replace the wall clock, the monotonic clock or the TLS settings. Closing it releases its leases and
 * closes its connections.
 */
final class TestClient implements AutoCloseable {
    /** Set as the lock value on nodes a test wants taken by "someone else". */
    static final String FOREIGN = "held-by-another-client";

    /**
     * The options of {@link #create(LockConfig)}: the tests run a tiny restart quarantine on
     * just-started servers with ordinary leases, which a real client would refuse.
     */
    static final RedlockProvider.Options OPTIONS = RedlockProvider.Options.DEFAULT.withoutQuarantineCheck();

    private static final Pattern REPORTED_ELAPSED = Pattern.compile("unavailable after (\\d+) ms");

    private final LeaseRuntime runtime;
    private final RedlockProvider provider;

    private TestClient(LockConfig config, MonotonicClock clock, RedlockProvider.Options options) {
        this.runtime = new LeaseRuntime(config, clock);
        this.provider = RedlockProvider.create(config, runtime, options);
    }

    static TestClient create(LockConfig config) {
        return create(config, MonotonicClock.SYSTEM, OPTIONS);
    }

    static TestClient create(LockConfig config, MonotonicClock clock, RedlockProvider.Options options) {
        return new TestClient(config, clock, options);
    }

    /**
     * A configuration for {@code servers} with no restart quarantine to speak of (1 ns: the servers
     * were just started) and a node timeout generous enough for a busy build machine; tests about
     * timeouts or the quarantine set their own.
     */
    static LockConfig.Builder config(RedisServers servers) {
        return LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.NODES, servers.uris())
                .set(RedlockSettings.RESTART_QUARANTINE, Duration.ofNanos(1))
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(2))
                .leaseTime(Duration.ofSeconds(10));
    }

    /** The elapsed time a {@link LockUnavailableException} names in its message. */
    static Duration reportedElapsed(LockUnavailableException e) {
        Matcher matcher = REPORTED_ELAPSED.matcher(e.getMessage());
        if (!matcher.find()) {
            throw new AssertionError("no elapsed time in: " + e.getMessage());
        }
        return Duration.ofMillis(Long.parseLong(matcher.group(1)));
    }

    FencedLock lock(String name) {
        return provider.lock(name);
    }

    RedlockProvider provider() {
        return provider;
    }

    /** Makes {@code nodes} (indexes) answer that another client holds {@code name}. */
    static void takeElsewhere(RedisServers servers, Collection<Integer> nodes, String name) {
        for (int node : nodes) {
            servers.get(node).command("SET", RedlockKeys.lockKey(name), FOREIGN, "PX", "60000");
        }
    }

    /** Removes what {@link #takeElsewhere} set, and nothing else. */
    static void freeElsewhere(RedisServers servers, String name) {
        for (RedisServerProcess server : servers.all()) {
            if (server.isAlive() && FOREIGN.equals(server.command("GET", RedlockKeys.lockKey(name)))) {
                server.command("DEL", RedlockKeys.lockKey(name));
            }
        }
    }

    /** The lock value on node {@code node}, or null. */
    static String lockValue(RedisServers servers, int node, String name) {
        return (String) servers.get(node).command("GET", RedlockKeys.lockKey(name));
    }

    @Override
    public void close() {
        try {
            runtime.close();
        } finally {
            provider.close();
        }
    }
}
