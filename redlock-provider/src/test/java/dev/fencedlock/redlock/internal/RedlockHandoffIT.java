package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hand-off on release. Every client here has a retry delay of a minute (at least 30 s between
 * attempts), and every wait is shorter than that: a waiter that gets the lock was woken by the
 * release, not by its retry timer.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedlockHandoffIT {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(3);

    @Test
    void aReleaseWakesAWaiterOfTheSameClient() throws Exception {
        String name = "handoff:local";
        try (TestClient client = TestClient.create(config())) {
            Lease held = client.lock(name).tryAcquire(Duration.ZERO).orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = waitFor(client, name);
            await(() -> client.provider().handoff().waitedFor().contains(name));
            held.close();
            Optional<Lease> next = waiter.get(WAIT.toSeconds() + 10, TimeUnit.SECONDS);
            assertThat(next).as("woken by the release within %s", WAIT).isPresent();
            assertThat(next.get().token()).isGreaterThan(held.token());
            next.get().close();
        }
    }

    @Test
    void aReleaseWakesAWaiterOfAnotherClientThroughPubSub() throws Exception {
        String name = "handoff:remote";
        try (TestClient holder = TestClient.create(config());
                TestClient other = TestClient.create(config())) {
            Lease held = holder.lock(name).tryAcquire(Duration.ZERO).orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = waitFor(other, name);
            await(() -> other.provider().handoff().hearsReleasesOf(name));
            await(() -> subscribers(redis.servers(), name) > 0);
            held.close();
            Optional<Lease> next = waiter.get(WAIT.toSeconds() + 10, TimeUnit.SECONDS);
            assertThat(next)
                    .as("woken by the published release within %s", WAIT)
                    .isPresent();
            assertThat(next.get().token()).isGreaterThan(held.token());
            next.get().close();
        }
    }

    @Test
    void aWaiterStillHearsReleasesWhenTheNodeItListensOnDies() throws Exception {
        String name = "handoff:listener-failover";
        try (TestClient holder = TestClient.create(config());
                TestClient other = TestClient.create(config())) {
            Lease held = holder.lock(name).tryAcquire(Duration.ZERO).orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = waitFor(other, name);
            await(() -> other.provider().handoff().hearsReleasesOf(name));
            RedisServerProcess listenedTo = redis.servers().all().stream()
                    .filter(server -> subscribers(server, name) > 0)
                    .findFirst()
                    .orElseThrow();
            listenedTo.kill();
            // the only subscription was on the dead node: one on a live node is the new one
            await(() -> subscribers(redis.servers(), name) > 0);
            held.close();
            Optional<Lease> next = waiter.get(WAIT.toSeconds() + 10, TimeUnit.SECONDS);
            assertThat(next).as("woken through another node within %s", WAIT).isPresent();
            next.get().close();
        }
    }

    /**
     * Three clients with three threads each take turns on one lock. With a one-minute retry delay,
     * every hand-off must come from a release (or a split vote's short delay): a lost wake-up would
     * stall a waiter past the test's timeout.
     */
    @Test
    void contendersInSeveralClientsAllGetTheirTurnsWithoutWaitingForRetryDelays() throws Exception {
        String name = "handoff:contention";
        int rounds = 10;
        List<TestClient> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(9);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        try {
            for (int c = 0; c < 3; c++) {
                clients.add(TestClient.create(config()));
            }
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 9; t++) {
                TestClient client = clients.get(t % 3);
                work.add(threads.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(90))) {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            tokens.add(lease.token());
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : work) {
                future.get(100, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
            clients.forEach(TestClient::close);
        }
        assertThat(overlaps.get()).isZero();
        assertThat(tokens).hasSize(9 * rounds).doesNotHaveDuplicates();
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token #%d", i).isGreaterThan(tokens.get(i - 1));
        }
    }

    private static LockConfig config() {
        return TestClient.config(redis.servers())
                .set(RedlockSettings.RETRY_DELAY, Duration.ofMinutes(1))
                .build();
    }

    private static CompletableFuture<Optional<Lease>> waitFor(TestClient client, String name) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return client.lock(name).tryAcquire(WAIT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
    }

    private static long subscribers(RedisServers servers, String name) {
        return servers.all().stream()
                .filter(RedisServerProcess::isAlive)
                .mapToLong(server -> subscribers(server, name))
                .sum();
    }

    private static long subscribers(RedisServerProcess server, String name) {
        List<?> reply = (List<?>) server.command("PUBSUB", "NUMSUB", RedlockKeys.releaseChannel(name));
        return (Long) reply.get(1);
    }

    /** Waits for a condition the test cannot be told about directly; fails after 10 s. */
    private static void await(BooleanSupplier condition) throws InterruptedException {
        Await.until("condition", Duration.ofSeconds(10), condition);
    }
}
