package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.jdbc.JdbcFencing;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.junit.PerClassResource;
import dev.fencedlock.testkit.redis.RedisCluster;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A grant lost in a failover inside a Redis Cluster, checked against the fence: the master of the
 * lock's slot grants the lock to a first client but never passes the grant to its replica
 * (replication to it is refused first), the master is SIGKILLed and the cluster promotes the
 * replica, which has no lock key. A second client is granted the lock there while the first still
 * holds a valid 60 s lease: two holders, as the docs say a failover can give. Its token is larger
 * (the replica's counter lags, the token order's time floor does not), and the fence row
 * (PostgreSQL, the guard sent with the work's first statement) refuses the older holder's write.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisClusterLostGrantIT {
    /** Cluster node timeout, then the replica's election: the wait covers both with room. */
    private static final Duration REGRANT_LIMIT = Duration.ofSeconds(30);

    @RegisterExtension
    static final PerClassResource<TestDatabase> db = PerClassResource.of(() -> {
        TestDatabase database = TestDatabase.create(TestDatabase.Kind.POSTGRESQL, "ficl", 4)
                .migrate("classpath:db/fencedlock/migration");
        database.execute(
                "CREATE TABLE cluster_failover_counter (name VARCHAR(256) PRIMARY KEY, counter_value BIGINT NOT NULL)");
        return database;
    });

    @Test
    void aGrantLostInAShardsFailoverGivesTwoHoldersAndTheFenceRefusesTheOlder() throws Exception {
        String lock = "cluster-failover-lost";
        db.get().execute("INSERT INTO cluster_failover_counter VALUES (?, 0)", lock);
        RedlockKeys keys = RedlockKeys.defaults();
        try (RedisCluster cluster = RedisCluster.start(3)) {
            int slot = cluster.slotOf(keys.lock(lock));
            RedisServerProcess master = cluster.ownerOf(slot);
            RedisServerProcess replica = cluster.addReplica(master);
            LockConfig config = LockConfig.builder()
                    .backend("redlock")
                    .set(RedlockSettings.CLUSTER_NODES, cluster.seeds())
                    .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(1))
                    .set(RedlockSettings.RETRY_DELAY, Duration.ofMillis(100))
                    .leaseTime(Duration.ofSeconds(3))
                    .build();
            try (LockClient older = LockClient.create(config);
                    LockClient newer = LockClient.create(config)) {
                try (Lease warmUp = older.lock(lock).acquire(REGRANT_LIMIT)) {
                    master.command("WAIT", "1", "2000");
                }
                // the replica must not receive the next grant: it may no longer (re)start
                // replication, and its link is cut; the cluster bus is not affected
                master.commands(List.of(
                        List.of("ACL", "SETUSER", "default", "-psync", "-sync"),
                        List.of("CLIENT", "KILL", "TYPE", "replica")));
                Await.until(
                        "the replica's link to the master is down",
                        Duration.ofSeconds(10),
                        () -> String.valueOf(replica.command("INFO", "replication"))
                                .contains("master_link_status:down"));
                Lease first = older.lock(lock).acquire(REGRANT_LIMIT, Duration.ofSeconds(60));
                assertThat(master.command("EXISTS", keys.lock(lock)))
                        .as("held on the master")
                        .isEqualTo(1L);
                assertThat(replica.commands(List.of(List.of("READONLY"), List.of("EXISTS", keys.lock(lock)))))
                        .as("never replicated")
                        .isEqualTo(0L);
                long killedAt = System.nanoTime();
                master.kill();
                Lease second = newer.lock(lock).acquire(REGRANT_LIMIT);
                System.out.printf(
                        "cluster failover, lost grant: second holder %d ms after SIGKILL, while the first holds a"
                                + " 60 s lease%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt));
                assertThat(cluster.ownerOf(slot))
                        .as("the replica owns the slot now")
                        .isSameAs(replica);
                assertThat(first.isValid())
                        .as("the older holder still believes it holds")
                        .isTrue();
                assertThat(second.isValid()).isTrue();
                assertThat(second.token()).as("newer token").isGreaterThan(first.token());

                assertThat(fencedIncrement(second, lock)).isEqualTo(1);
                assertThatThrownBy(() -> fencedIncrement(first, lock))
                        .as("the older holder's write")
                        .isInstanceOf(FenceRefusedException.class);
                assertThat(db.get()
                                .queryLong("SELECT counter_value FROM cluster_failover_counter WHERE name = ?", lock))
                        .as("only the newer holder wrote")
                        .isEqualTo(1L);
                second.close();
                first.close();
            }
        }
    }

    private static int fencedIncrement(Lease lease, String lock) throws SQLException {
        return JdbcFencing.inTransaction(db.get().dataSource(), lease, connection -> {
            try (PreparedStatement increment = connection.prepareStatement(
                    "UPDATE cluster_failover_counter SET counter_value = counter_value + 1 WHERE name = ?")) {
                increment.setString(1, lock);
                return increment.executeUpdate();
            }
        });
    }
}
