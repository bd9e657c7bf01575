package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.jdbc.JdbcFencing;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.junit.PerClassResource;
import dev.fencedlock.testkit.net.FreePorts;
import dev.fencedlock.testkit.redis.RedisSentinelGroup;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Redis Sentinel deployment under a failover: a master, one replica and three Sentinels ({@code
 * down-after-milliseconds} 1000, quorum 2), the client configured with {@code
 * fencedlock.redlock.sentinel.*}. The master is SIGKILLed; the Sentinels promote the replica and
 * the client follows them.
 *
 * <ul>
 *   <li>Grants resume within 20 s of the kill (default restart quarantine: the promoted replica
 *       sits out one lease time after the client first sees it), and every token after the failover
 *       is above every token before it: the counters on the replica may lag, the time floor of the
 *       token order does not.
 *   <li>A client started more than a lease time after the promotion is granted at once: the
 *       Sentinels date the promotion ({@code role-reported-time}), so the promoted master does not
 *       sit out a restart quarantine counted from that client's first probe.
 *   <li>A grant the replica never received (replication to it refused before the grant) is lost
 *       in the failover: a second client is granted the lock while the first still holds a valid
 *       lease, and the fence row of {@code fencing-jdbc} (H2) refuses the older holder's write. With
 *       {@code wait-replicas=1} that grant is not given in the first place (not acknowledged,
 *       released).
 * </ul>
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisSentinelFailoverIT {
    private static final String MASTER_NAME = "fencedlock-failover";
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration REGRANT_LIMIT = Duration.ofSeconds(20);

    @RegisterExtension
    static final PerClassResource<TestDatabase> db = PerClassResource.of(() -> {
        TestDatabase database = TestDatabase.create(TestDatabase.Kind.H2).migrate("classpath:db/fencedlock/migration");
        database.execute(
                "CREATE TABLE sentinel_failover_counter (name VARCHAR(256) PRIMARY KEY, counter_value BIGINT NOT NULL)");
        return database;
    });

    private RedisSentinelGroup group;
    private RedisServerProcess master;
    private RedisServerProcess replica;

    @BeforeEach
    void startSentinelGroup() {
        group = RedisSentinelGroup.start(MASTER_NAME, 1, 3, Duration.ofSeconds(1));
        master = group.master();
        replica = group.replicas().get(0);
    }

    @AfterEach
    void stopAll() {
        if (group != null) {
            group.close();
        }
    }

    @Test
    void grantsResumeAfterTheMasterIsKilledAndTokensStayAboveEveryEarlierOne() throws Exception {
        String lock = "sentinel-failover-tokens";
        List<Long> before = new ArrayList<>();
        List<Long> after = new ArrayList<>();
        // the first Sentinel listed is gone: the client asks the next ones in turn
        try (LockClient client = LockClient.create(config().set(
                        RedlockSettings.SENTINEL_NODES,
                        "127.0.0.1:" + FreePorts.loopback() + "," + group.sentinelNodes())
                .build())) {
            Set<String> lookupConnections = lookupConnections();
            assertThat(lookupConnections).as("the client's lookup connection").isNotEmpty();
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_500);
            while (before.size() < 5 || System.nanoTime() - until < 0) {
                try (Lease lease = client.lock(lock).acquire(Duration.ofSeconds(10))) {
                    before.add(lease.token());
                }
            }
            // the Sentinels' links to each other may reconnect under load, so the connection is
            // followed by its id rather than by the Sentinels' connection totals
            assertThat(lookupConnections())
                    .as("the lookups under traffic (one a second) reuse their Sentinel connection")
                    .isNotEmpty()
                    .isSubsetOf(lookupConnections);
            long killedAt = System.nanoTime();
            master.kill();
            long grantedAt;
            try (Lease lease = client.lock(lock).acquire(REGRANT_LIMIT)) {
                grantedAt = System.nanoTime();
                after.add(lease.token());
            }
            Duration regrant = Duration.ofNanos(grantedAt - killedAt);
            System.out.printf(
                    "sentinel failover: first grant %d ms after SIGKILL of the master (lease time %d ms)%n",
                    regrant.toMillis(), LEASE.toMillis());
            assertThat(regrant).as("first grant after the kill").isLessThan(REGRANT_LIMIT);
            assertThat(group.masterPort(sentinels().get(0)))
                    .as("the Sentinels name the replica")
                    .isEqualTo(replica.port());
            for (int i = 0; i < 4; i++) {
                try (Lease lease = client.lock(lock).acquire(Duration.ofSeconds(10))) {
                    after.add(lease.token());
                }
            }
        }
        Await.until(
                "the Sentinels switched to the replica more than a lease time ago",
                Duration.ofSeconds(15),
                () -> Long.parseLong(group.masterField(sentinels().get(0), "role-reported-time"))
                        > LEASE.plusSeconds(1).toMillis());
        try (LockClient late = LockClient.create(config().build())) {
            long start = System.nanoTime();
            Optional<Lease> first = late.lock(lock).tryAcquire(Duration.ofMillis(1500));
            assertThat(first)
                    .as("a client started after the failover does not sit out a lease time on the promoted master")
                    .isPresent();
            System.out.printf(
                    "sentinel failover: a client started %d ms after the promotion is granted in %d ms%n",
                    Long.parseLong(group.masterField(sentinels().get(0), "role-reported-time")),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            after.add(first.get().token());
            first.get().close();
        }
        assertThat(before).isSorted().doesNotHaveDuplicates();
        assertThat(after).isSorted().doesNotHaveDuplicates();
        assertThat(Collections.min(after))
                .as("every token after the failover is above every token before it")
                .isGreaterThan(Collections.max(before));
    }

    @Test
    void aGrantLostInTheFailoverGivesTwoHoldersAndTheFenceRefusesTheOlder() throws Exception {
        String lock = "sentinel-failover-lost";
        db.get().execute("INSERT INTO sentinel_failover_counter VALUES (?, 0)", lock);
        String lockKey = RedlockKeys.defaults().lock(lock);
        // The replica must not receive the grant: it may no longer (re)start replication, and its
        // link is cut. Sentinel's own commands (PING, INFO, PUBLISH) stay permitted.
        master.commands(List.of(
                List.of("ACL", "SETUSER", "default", "-psync", "-sync"), List.of("CLIENT", "KILL", "TYPE", "replica")));
        Await.until(
                "the replica's link to the master is down",
                Duration.ofSeconds(10),
                () -> info(replica, "replication").contains("master_link_status:down"));
        try (LockClient older = LockClient.create(config().build());
                LockClient newer = LockClient.create(config().set(RedlockSettings.RESTART_QUARANTINE, Duration.ZERO)
                        .build())) {
            try (LockClient acknowledged = LockClient.create(config().set(RedlockSettings.WAIT_REPLICAS, "1")
                    .set(RedlockSettings.WAIT_REPLICAS_TIMEOUT, Duration.ofMillis(200))
                    .build())) {
                assertThatThrownBy(() -> acknowledged.lock(lock).tryAcquire(Duration.ZERO))
                        .as("with wait-replicas=1 the grant the replica cannot receive is not given")
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("0 of the 1 replicas required");
                Await.until(
                        "the unacknowledged grant is released",
                        Duration.ofSeconds(5),
                        () -> Long.valueOf(0).equals(master.command("EXISTS", lockKey)));
            }
            Lease first = older.lock(lock).acquire(Duration.ofSeconds(10), Duration.ofSeconds(60));
            assertThat(master.command("EXISTS", lockKey))
                    .as("held on the master")
                    .isEqualTo(1L);
            assertThat(replica.command("EXISTS", lockKey))
                    .as("never replicated")
                    .isEqualTo(0L);
            long killedAt = System.nanoTime();
            master.kill();
            Lease second = newer.lock(lock).acquire(REGRANT_LIMIT);
            System.out.printf(
                    "sentinel failover, lost grant: second holder %d ms after SIGKILL, while the first holds a"
                            + " 60 s lease%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt));
            assertThat(first.isValid())
                    .as("the older holder still believes it holds")
                    .isTrue();
            assertThat(second.isValid()).isTrue();
            assertThat(second.token()).as("newer token").isGreaterThan(first.token());
            assertThat(fencedIncrement(second, lock)).isEqualTo(1);
            assertThatThrownBy(() -> fencedIncrement(first, lock))
                    .as("the older holder's write")
                    .isInstanceOf(FenceRefusedException.class);
            assertThat(db.get().queryLong("SELECT counter_value FROM sentinel_failover_counter WHERE name = ?", lock))
                    .as("only the newer holder wrote")
                    .isEqualTo(1L);
            second.close();
            first.close();
        }
    }

    private LockConfig.Builder config() {
        return LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.SENTINEL_MASTER, MASTER_NAME)
                .set(RedlockSettings.SENTINEL_NODES, group.sentinelNodes())
                .set(RedlockSettings.NODE_TIMEOUT, RedisSetup.NODE_TIMEOUT)
                .set(RedlockSettings.RETRY_DELAY, Duration.ofMillis(50))
                .leaseTime(LEASE);
    }

    /** Connections the Sentinels accepted so far ({@code total_connections_received}), this call's own included. */
    /**
     * The connections, as {@code <sentinel port>/<client id>}, whose last command was one of the
     * client's lookups ({@code SENTINEL GET-MASTER-ADDR-BY-NAME} or {@code SENTINEL MASTER}); the
     * Sentinels' own links to each other are named {@code sentinel-...} and left out. Client ids
     * only grow, so a connection replaced between two calls has a new id.
     */
    private Set<String> lookupConnections() {
        Set<String> ids = new TreeSet<>();
        for (RedisServerProcess sentinel : sentinels()) {
            for (String client :
                    String.valueOf(sentinel.command("CLIENT", "LIST")).split("\n")) {
                Map<String, String> fields = new HashMap<>();
                for (String field : client.trim().split(" ")) {
                    int eq = field.indexOf('=');
                    if (eq > 0) {
                        fields.put(field.substring(0, eq), field.substring(eq + 1));
                    }
                }
                String command = fields.getOrDefault("cmd", "");
                boolean lookup =
                        command.equals("sentinel|get-master-addr-by-name") || command.equals("sentinel|master");
                if (lookup && !fields.getOrDefault("name", "").startsWith("sentinel-")) {
                    ids.add(sentinel.port() + "/" + fields.get("id"));
                }
            }
        }
        return ids;
    }

    private static int fencedIncrement(Lease lease, String lock) throws SQLException {
        return JdbcFencing.inTransaction(db.get().dataSource(), lease, connection -> {
            try (PreparedStatement increment = connection.prepareStatement(
                    "UPDATE sentinel_failover_counter SET counter_value = counter_value + 1 WHERE name = ?")) {
                increment.setString(1, lock);
                return increment.executeUpdate();
            }
        });
    }

    private List<RedisServerProcess> sentinels() {
        return group.sentinels();
    }

    private static String info(RedisServerProcess server, String section) {
        return String.valueOf(server.command("INFO", section));
    }
}
