package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.faults.report.FaultMatrix;
import dev.fencedlock.faults.report.MatrixRow;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fault 6: one client holds many auto-renewing leases while one of five masters stops answering
 * (SIGSTOP) for longer than the lease. Four healthy masters are a quorum, so no lease may be lost.
 * A runtime that renews with blocking I/O on its scheduler loses all of them: every renewal waits
 * the silent node's timeout, and a few scheduler threads cannot renew hundreds of leases a second.
 *
 * <p>Sizes: {@code faults.leases} (default 500; the {@code scale} profile runs 20,000) leases of
 * {@code faults.lease-time} (default 3 s), one node silent for {@code faults.silence} (default 10 s).
 */
class ManyLeasesSilentNodeIT {
    private static final Logger log = LoggerFactory.getLogger(ManyLeasesSilentNodeIT.class);
    private static final int LEASES = Integer.getInteger("faults.leases", 500);
    private static final Duration LEASE_TIME = Duration.ofMillis(Long.getLong("faults.lease-time", 3_000));
    private static final Duration SILENCE = Duration.ofMillis(Long.getLong("faults.silence", 10_000));

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(5);

    @Test
    void oneSilentMasterOfFiveCostsNoLease() throws Exception {
        RedisServers servers = redis.servers();
        servers.awaitUptime(LEASE_TIME);
        Set<String> lost = ConcurrentHashMap.newKeySet();
        List<Lease> leases = new ArrayList<>(LEASES);
        try (LockClient client =
                LockClient.create(RedisSetup.config(servers.uris(), LEASE_TIME).build())) {
            for (int i = 0; i < LEASES; i++) {
                String name = "faults:many:" + i;
                Optional<Lease> lease = client.lock(name).tryAcquire(Duration.ofSeconds(10));
                assertThat(lease)
                        .as("lease %s of %s before the fault", i, LEASES)
                        .isPresent();
                lease.get()
                        .onLost((l, cause) -> lost.add(
                                l.lockName() + ": " + cause.getMessage() + " (cause: " + cause.getCause() + ")"));
                leases.add(lease.get());
            }
            log.info("{} leases held, {} lost so far; silencing one node", leases.size(), lost.size());
            RedisServerProcess silent = servers.get(0);
            long connectionsBefore = connectionsReceived(silent);
            silent.pause();
            try {
                // the fault is a span of time: the leases must outlive it
                Thread.sleep(SILENCE.toMillis());
            } finally {
                silent.resume();
            }
            log.info("node back, {} leases lost so far", lost.size());
            // two more renewal periods with every node back, so a renewal that was due then also ran
            Thread.sleep(LEASE_TIME.multipliedBy(2).dividedBy(3).toMillis());

            assertThat(lost.size())
                    .as(
                            "leases lost of %s with one of five nodes silent, e.g. %s",
                            LEASES, lost.stream().limit(3).toList())
                    .isZero();
            assertThat(leases.stream()
                            .filter(l -> !l.isValid())
                            .map(Lease::lockName)
                            .limit(10))
                    .as("leases no longer valid")
                    .isEmpty();
            assertHeldOnHealthyNodes(servers, leases);
            // the connections the silent node met when it woke up: one pipeline reconnects at most once
            // per node timeout, and no pile of waiting connects was let loose on it
            long connections = connectionsReceived(silent) - connectionsBefore;
            long bound = 2 * SILENCE.toMillis() / RedisSetup.NODE_TIMEOUT.toMillis() + 20;
            log.info("the silent node received {} connections while silent (bound {})", connections, bound);
            assertThat(connections)
                    .as("connections the silent node received for %s leases", LEASES)
                    .isLessThanOrEqualTo(bound);
            for (Lease lease : leases) {
                lease.close();
            }
        }
        FaultMatrix.record(new MatrixRow(
                "6-many-leases-silent-node",
                LEASES + " auto-renewing " + LEASE_TIME.toSeconds() + " s leases, 1 of 5 nodes SIGSTOP'd for "
                        + SILENCE.toSeconds() + " s",
                "redlock",
                1,
                LEASES,
                0,
                0,
                lost.size(),
                0,
                0,
                0,
                "-",
                "no lease lost"));
    }

    private static long connectionsReceived(RedisServerProcess server) {
        String stats = (String) server.command("INFO", "stats");
        return stats.lines()
                .filter(line -> line.startsWith("total_connections_received:"))
                .mapToLong(line -> Long.parseLong(
                        line.substring("total_connections_received:".length()).trim()))
                .findFirst()
                .orElseThrow();
    }

    /** Every lease's key on the four nodes that never stopped still holds the lease's own value. */
    private static void assertHeldOnHealthyNodes(RedisServers servers, List<Lease> leases) {
        int step = Math.max(1, leases.size() / 50);
        for (int n = 1; n < servers.size(); n++) {
            for (int i = 0; i < leases.size(); i += step) {
                Object ttl = servers.get(n)
                        .command("PTTL", RedlockKeys.lockKey(leases.get(i).lockName()));
                assertThat((Long) ttl)
                        .as("time to live of %s on node %s", leases.get(i).lockName(), n)
                        .isPositive();
            }
        }
    }
}
