package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * The key prefix and the restart quarantine that follows the leases live on the nodes, on one real
 * {@code redis-server} restarted without persistence.
 * Clients use a lease time of 1 s, so the quarantine's floor is 1 s and anything longer in a
 * measurement comes from a long lease.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockLiveLeasesIT {
    private static final Duration LEASE_TIME = Duration.ofSeconds(1);
    private static final Duration TEN_MINUTES = Duration.ofMinutes(10);
    /** The floor of 1 s, plus a second of uptime granularity, plus a loaded machine. */
    private static final Duration WAIT_AFTER_RESTART = Duration.ofSeconds(8);

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(1);

    private static LockConfig.Builder config() {
        return LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.NODES, redis.servers().uris())
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(2))
                .leaseTime(LEASE_TIME);
    }

    private static TestClient client(LockConfig config) {
        return TestClient.create(config, MonotonicClock.SYSTEM, RedlockProvider.Options.DEFAULT);
    }

    private static RedisServerProcess server() {
        return redis.servers().get(0);
    }

    private static Lease hold(TestClient client, String name, Duration lease) throws InterruptedException {
        return client.lock(name)
                .tryAcquire(WAIT_AFTER_RESTART, lease)
                .orElseThrow(() -> new AssertionError("'" + name + "' was not granted"));
    }

    @Test
    void twoApplicationsWithTheirOwnPrefixesShareNeitherLocksNorQuarantine() throws Exception {
        server().restartEmpty();
        try (TestClient a = client(
                        config().set(RedlockSettings.KEY_PREFIX, "app-a:").build());
                TestClient b = client(
                        config().set(RedlockSettings.KEY_PREFIX, "app-b:").build())) {
            Lease ofA = hold(a, "shared", Duration.ofSeconds(50));
            Lease ofB = hold(b, "shared", LEASE_TIME);
            assertThat(ofA.isValid() && ofB.isValid())
                    .as("both hold 'shared' at once")
                    .isTrue();
            assertThat(keys())
                    .containsExactlyInAnyOrder(
                            "app-a:{shared}:lock",
                            "app-a:{shared}:token",
                            "app-a:lease-expiries",
                            "app-a:lease-lengths",
                            "app-b:{shared}:lock",
                            "app-b:{shared}:token",
                            "app-b:lease-expiries",
                            "app-b:lease-lengths");
            assertThat(a.provider().longestOutstandingLease().orElseThrow())
                    .as("a's own 50 s lease")
                    .isGreaterThan(Duration.ofSeconds(40));
            assertThat(b.provider().longestOutstandingLease())
                    .as("b's record knows nothing of a's lease")
                    .contains(LEASE_TIME);

            server().restartEmpty();
            long start = System.nanoTime();
            hold(b, "after-restart", LEASE_TIME).close();
            Duration bWaited = Duration.ofNanos(System.nanoTime() - start);
            assertThatThrownBy(() -> a.lock("after-restart").tryAcquire(Duration.ofSeconds(2)))
                    .as("a's own 50 s lease may still be held: the restarted node stays out for a")
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("restart quarantine");
            System.out.printf("prefixes: b granted %d ms after the restart; a quarantined%n", bWaited.toMillis());
            ofA.close();
            ofB.close();
            assertThat(keys())
                    .as("every key starts with a prefix")
                    .allSatisfy(key -> assertThat(key).matches("app-[ab]:.*"));
        }
    }

    /** ShedLock's lockAtMostFor=10m released after the job ran, then Redis restarts. */
    @Test
    void aTenMinuteLeaseReleasedBeforeARestartDoesNotQuarantineIt() throws Exception {
        server().restartEmpty();
        try (TestClient client = client(config().build())) {
            hold(client, "job", TEN_MINUTES).close();
            assertThat(client.provider().longestOutstandingLease()).contains(LEASE_TIME);

            server().restartEmpty();
            long start = System.nanoTime();
            hold(client, "job", TEN_MINUTES).close();
            long waited = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("released 10 min lease: granted %d ms after the restart%n", waited);
            assertThat(waited)
                    .as("the 1 s floor and the uptime's 1 s granularity, not ten minutes")
                    .isLessThan(WAIT_AFTER_RESTART.toMillis());
        }
    }

    @Test
    void aLiveTenMinuteLeaseKeepsTheRestartedNodeOutUnlessTheQuarantineIsOff() throws Exception {
        server().restartEmpty();
        try (TestClient holder = client(config().build());
                TestClient off = client(config().set(RedlockSettings.RESTART_QUARANTINE, Duration.ZERO)
                        .build())) {
            Lease job = hold(holder, "job", TEN_MINUTES);
            server().restartEmpty();
            assertThat(holder.provider().longestOutstandingLease().orElseThrow())
                    .isGreaterThan(TEN_MINUTES.minusSeconds(30));
            assertThatThrownBy(() -> holder.lock("job").tryAcquire(Duration.ofSeconds(3)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("restart quarantine");
            // restart-quarantine=0s: the documented trade-off, a second holder at once
            assertThat(off.lock("job").tryAcquire(Duration.ZERO))
                    .as("with the quarantine off the forgotten lease is granted again at once")
                    .hasValueSatisfying(second -> assertThat(second.token()).isGreaterThan(job.token()));
            job.close();
        }
    }

    /** A just-started Redis, a job retrying every attempt: one WARN with the time left. */
    @Test
    void aFreshNodeIsReportedOnceWithTheTimeLeftAndZeroMakesItUsableAtOnce() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(NodeHealth.class);
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        logger.addAppender(logs);
        server().restartEmpty();
        try (TestClient production =
                        client(config().leaseTime(Duration.ofSeconds(30)).build());
                TestClient development = client(config().set(RedlockSettings.RESTART_QUARANTINE, Duration.ZERO)
                        .build())) {
            for (int i = 0; i < 5; i++) {
                assertThatThrownBy(() -> production.lock("tick").tryAcquire(Duration.ZERO))
                        .isInstanceOf(LockUnavailableException.class);
            }
            assertThat(development.lock("tick").tryAcquire(Duration.ZERO)).isPresent();
        } finally {
            logger.detachAppender(logs);
        }
        List<ILoggingEvent> warnings = new ArrayList<>(logs.list);
        warnings.removeIf(event -> event.getLevel() != Level.WARN);
        assertThat(warnings).singleElement().satisfies(event -> {
            assertThat(event.getFormattedMessage())
                    .contains(":" + server().port())
                    .containsPattern("for about \\d+ ms more")
                    .contains(RedlockSettings.RESTART_QUARANTINE + "=0s");
            assertThat(event.getThrowableProxy()).as("no stack trace").isNull();
        });
    }

    @Test
    void longestOutstandingLeaseFollowsOtherClientsLeasesAsReadAndNeverAsksANode() throws Exception {
        server().restartEmpty();
        try (TestClient holder = client(config().build());
                TestClient reader = client(config().build())) {
            Lease held = hold(holder, "long", Duration.ofSeconds(20));
            hold(reader, "other", LEASE_TIME).close();
            assertThat(reader.provider().longestOutstandingLease().orElseThrow())
                    .as("read from the node's record of live leases")
                    .isBetween(Duration.ofSeconds(10), Duration.ofSeconds(20));

            server().pause();
            try {
                long start = System.nanoTime();
                reader.provider().longestOutstandingLease();
                long tookMillis = (System.nanoTime() - start) / 1_000_000;
                assertThat(tookMillis).as("a frozen node is not asked").isLessThan(1_000);
            } finally {
                server().resume();
            }

            held.close();
            hold(reader, "other", LEASE_TIME).close();
            assertThat(reader.provider().longestOutstandingLease())
                    .as("released: the next reading drops it")
                    .contains(LEASE_TIME);
        }
    }

    private static Set<String> keys() {
        Set<String> keys = new TreeSet<>();
        String cursor = "0";
        do {
            List<?> reply = (List<?>) server().command("SCAN", cursor, "COUNT", "1000");
            cursor = (String) reply.get(0);
            for (Object key : (List<?>) reply.get(1)) {
                keys.add((String) key);
            }
        } while (!cursor.equals("0"));
        return keys;
    }
}
