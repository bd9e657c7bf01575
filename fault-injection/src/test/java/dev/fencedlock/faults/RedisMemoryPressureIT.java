package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.faults.report.FaultMatrix;
import dev.fencedlock.faults.report.MatrixRow;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.redis.RedisCommandException;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 7: Redis under memory pressure. With a memory limit and an evicting {@code
 * maxmemory-policy}, Redis deletes keys that have not expired to make room: a held lock key (a
 * second client can then be granted the lock while the first holds a valid lease, like the clock
 * jump of fault 4) and the token counters (which the token argument assumes nothing deletes). With
 * {@code noeviction} writes fail instead, which costs availability, not safety. The redlock client
 * therefore never counts a node that may evict (see {@code RedlockLocks}).
 */
class RedisMemoryPressureIT {
    private static final String LIMIT = "2mb";
    private static final long LIMIT_BYTES = 2L * 1024 * 1024;
    private static final String VALUE_1K = "x".repeat(1024);

    /** Started with the class, so that they have been up for a while when the hazard test runs. */
    @RegisterExtension
    static final RedisServersExtension hazardNodes = RedisServersExtension.nodes(3);

    /** What a policy did to a lock key and a token counter when three times the limit was written. */
    private record Observed(boolean lockKept, boolean counterKept, long evicted, long refusedBatches) {}

    @Test
    void whatEachPolicyDoesToALockKeyAndItsCounter() throws Exception {
        Observed noeviction = observe("noeviction");
        assertThat(noeviction.lockKept()).isTrue();
        assertThat(noeviction.counterKept()).isTrue();
        assertThat(noeviction.evicted()).isZero();
        assertThat(noeviction.refusedBatches()).as("writes refused with OOM").isPositive();
        record("7a-noeviction", "noeviction", noeviction);

        Observed allkeys = observe("allkeys-lru");
        assertThat(allkeys.lockKept()).as("lock key under allkeys-lru").isFalse();
        assertThat(allkeys.counterKept()).as("token counter under allkeys-lru").isFalse();
        assertThat(allkeys.refusedBatches()).isZero();
        record("7a-allkeys-lru", "allkeys-lru", allkeys);

        Observed volatileLru = observe("volatile-lru");
        assertThat(volatileLru.lockKept())
                .as("lock key under volatile-lru (it has a TTL)")
                .isFalse();
        assertThat(volatileLru.counterKept())
                .as("token counter under volatile-lru (it has a TTL)")
                .isFalse();
        assertThat(volatileLru.refusedBatches())
                .as("OOM once no key with a TTL is left")
                .isPositive();
        record("7a-volatile-lru", "volatile-lru", volatileLru);
    }

    /**
     * On a server limited to {@value #LIMIT} with {@code policy}: writes a lock key and a counter as
     * the client does, lets the server's LRU clock (one-second resolution) move on so they are the
     * oldest keys, then writes three times the limit in 1 KiB values without a TTL.
     */
    private static Observed observe(String policy) throws InterruptedException {
        try (RedisServerProcess server = RedisServerProcess.builder()
                .arguments("--maxmemory", LIMIT, "--maxmemory-policy", policy)
                .start()) {
            String name = "memory:" + policy;
            server.command("SET", RedlockKeys.lockKey(name), "held", "PX", "60000");
            server.command("SET", RedlockKeys.tokenKey(name), "281474976710656", "PX", "86400000");
            Thread.sleep(2_000);
            long refused = fill(server, (int) (3 * LIMIT_BYTES / VALUE_1K.length()));
            return new Observed(
                    exists(server, RedlockKeys.lockKey(name)),
                    exists(server, RedlockKeys.tokenKey(name)),
                    stat(server, "evicted_keys"),
                    refused);
        }
    }

    /**
     * A lease is held on all three nodes; then two of them get a memory limit with {@code
     * allkeys-lru} and fill up, evicting the lock key. A client that trusted them would find two of
     * three nodes free while the first lease is valid. This client does not count them.
     */
    @Test
    void evictingNodesThatLostAHeldKeyAreNotCountedBySecondClient() throws Exception {
        RedisServers servers = hazardNodes.servers();
        // the holder's lease must outlast the filling; a client counts nodes it has never seen only
        // once they have been up for its quarantine, its lease time
        Duration lease = Duration.ofSeconds(12);
        servers.awaitUptime(lease);
        try {
            String lock = "memory:hazard";
            try (LockClient holder =
                    LockClient.create(RedisSetup.config(servers.uris(), lease).build())) {
                Lease held = holder.lock(lock).acquire(Duration.ofSeconds(10), lease);
                for (int n = 0; n < 2; n++) {
                    servers.get(n).command("CONFIG", "SET", "maxmemory", LIMIT);
                    servers.get(n).command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
                }
                Thread.sleep(2_000);
                for (int n = 0; n < 2; n++) {
                    fill(servers.get(n), (int) (3 * LIMIT_BYTES / VALUE_1K.length()));
                    assertThat(exists(servers.get(n), RedlockKeys.lockKey(lock)))
                            .as("held lock key on node %d after eviction", n)
                            .isFalse();
                }
                try (LockClient second = LockClient.create(
                        RedisSetup.config(servers.uris(), lease).build())) {
                    assertThatThrownBy(() -> second.lock(lock).tryAcquire(Duration.ZERO, lease))
                            .isInstanceOf(LockUnavailableException.class)
                            .hasMessageContaining("maxmemory-policy allkeys-lru");
                }
                assertThat(held.isValid())
                        .as("the first lease, still the only one")
                        .isTrue();
                held.close();
            }
        } finally {
            for (int n = 0; n < 2; n++) {
                servers.get(n).command("CONFIG", "SET", "maxmemory", "0");
                servers.get(n).command("CONFIG", "SET", "maxmemory-policy", "noeviction");
            }
        }
        FaultMatrix.record(new MatrixRow(
                "7b-eviction-hazard",
                "2 of 3 nodes switched to allkeys-lru and filled while a lease is held",
                "redlock",
                1,
                1,
                0,
                0,
                0,
                0,
                0,
                0,
                "-",
                "the held key was evicted on both; a second client was refused (LockUnavailableException: the"
                        + " evicting nodes do not count) while the first lease was valid"));
    }

    @Test
    void fullNoevictionNodesRefuseTheAcquisitionAndKeepNothing() throws Exception {
        try (RedisServers servers = RedisServers.start(
                3, options -> options.arguments("--maxmemory", LIMIT, "--maxmemory-policy", "noeviction"))) {
            for (RedisServerProcess server : servers.all()) {
                fillUntilRefused(server);
            }
            String lock = "memory:full";
            try (LockClient client = LockClient.create(
                    RedisSetup.config(servers.uris(), Duration.ofSeconds(5)).build())) {
                assertThatThrownBy(() -> client.lock(lock).tryAcquire(Duration.ZERO))
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("0 of 3 nodes answered")
                        .hasMessageContaining("OOM");
            }
            for (RedisServerProcess server : servers.all()) {
                assertThat(exists(server, RedlockKeys.lockKey(lock))).isFalse();
                assertThat(exists(server, RedlockKeys.tokenKey(lock))).isFalse();
            }
        }
        FaultMatrix.record(new MatrixRow(
                "7c-noeviction-full",
                "all 3 nodes full under noeviction",
                "redlock",
                1,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                "-",
                "acquisition fails with LockUnavailableException naming each node's OOM error; no lock key"
                        + " and no counter written"));
    }

    /** Writes {@code values} 1 KiB values without a TTL in batches of 100; counts refused batches. */
    private static long fill(RedisServerProcess server, int values) {
        long refused = 0;
        for (int start = 0; start < values; start += 100) {
            List<List<String>> batch = new ArrayList<>();
            for (int i = start; i < Math.min(values, start + 100); i++) {
                batch.add(List.of("SET", "filler:" + i, VALUE_1K));
            }
            try {
                server.commands(batch);
            } catch (RedisCommandException e) {
                assertThat(e).hasMessageContaining("OOM");
                refused++;
            }
        }
        return refused;
    }

    /**
     * Fills until even a tiny write is refused: 1 KiB values first, then small ones, since Redis
     * counts a command's own buffer when it decides and may still take a small write after refusing
     * a large one.
     */
    private static void fillUntilRefused(RedisServerProcess server) {
        fill(server, (int) (2 * LIMIT_BYTES / VALUE_1K.length()));
        for (int i = 0; ; i++) {
            try {
                server.command("SET", "tiny:" + i, "v");
            } catch (RedisCommandException e) {
                assertThat(e).hasMessageContaining("OOM");
                return;
            }
            assertThat(i).as("writes before the limit refuses them").isLessThan(100_000);
        }
    }

    private static boolean exists(RedisServerProcess server, String key) {
        return (Long) server.command("EXISTS", key) == 1L;
    }

    private static long stat(RedisServerProcess server, String field) {
        String info = (String) server.command("INFO", "stats");
        return info.lines()
                .filter(line -> line.startsWith(field + ":"))
                .mapToLong(line ->
                        Long.parseLong(line.substring(field.length() + 1).trim()))
                .findFirst()
                .orElseThrow();
    }

    private static void record(String id, String policy, Observed observed) {
        FaultMatrix.record(new MatrixRow(
                id,
                "maxmemory " + LIMIT + ", maxmemory-policy " + policy + "; 3x the limit written after a lock key"
                        + " and its counter",
                "redis",
                1,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                "-",
                "lock key " + (observed.lockKept() ? "kept" : "evicted") + ", counter "
                        + (observed.counterKept() ? "kept" : "evicted") + ", " + observed.evicted()
                        + " keys evicted, " + observed.refusedBatches() + " of 60 write batches refused (OOM)"));
    }
}
