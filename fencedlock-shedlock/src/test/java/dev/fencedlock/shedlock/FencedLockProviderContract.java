package dev.fencedlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockClient;
import dev.fencedlock.testkit.await.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.ShortKeepAlive;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * ShedLock's contract for an extensible lock provider, as its own providers are held to it, on one
 * fencedlock backend: two providers over two clients stand for two application instances.
 * Durations are short but above each backend's clock-drift allowance.
 */
abstract class FencedLockProviderContract {
    private static final Duration AWAIT = Duration.ofSeconds(20);
    private static final Duration AT_MOST = Duration.ofMillis(1500);

    /** A new client of the backend under test; closed by the test. */
    protected abstract LockClient newClient();

    /**
     * The shortest lease the backend grants as its refusal names it (e.g. {@code "4ms"}), for a
     * backend whose drift allowance makes a 2 ms lease never valid; empty for one without.
     */
    protected Optional<String> minimumLease() {
        return Optional.empty();
    }

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(Instant.now(), name, atMost, atLeast);
    }

    private static String name(TestInfo test) {
        return "shedlock:" + test.getTestMethod().orElseThrow().getName() + ":" + System.nanoTime();
    }

    /** Tries {@code provider.lock} until it grants {@code name}; fails after {@link #AWAIT}. */
    private static SimpleLock awaitLock(FencedLockProvider provider, String name, String what)
            throws InterruptedException {
        return Await.value(what, AWAIT, () -> provider.lock(config(name, AT_MOST, Duration.ZERO)), Optional::isPresent)
                .orElseThrow();
    }

    @Test
    void aHeldLockIsRefusedToEveryoneUntilUnlockedAndNeverReentered(TestInfo test) throws Exception {
        String name = name(test);
        try (LockClient one = newClient();
                LockClient two = newClient()) {
            FencedLockProvider first = new FencedLockProvider(one);
            FencedLockProvider second = new FencedLockProvider(two);
            SimpleLock held = first.lock(config(name, AT_MOST, Duration.ZERO)).orElseThrow();
            assertThat(second.lock(config(name, AT_MOST, Duration.ZERO)))
                    .as("another instance")
                    .isEmpty();
            assertThat(first.lock(config(name, AT_MOST, Duration.ZERO)))
                    .as("the same instance and thread: not reentrant")
                    .isEmpty();
            assertThat(second.lock(config(name + ":other", AT_MOST, Duration.ZERO)))
                    .as("another name")
                    .isPresent()
                    .get()
                    .satisfies(SimpleLock::unlock);
            long token = ((FencedSimpleLock) held).token();
            held.unlock();
            SimpleLock next = second.lock(config(name, AT_MOST, Duration.ZERO)).orElseThrow();
            assertThat(((FencedSimpleLock) next).token()).isGreaterThan(token);
            next.unlock();
            assertThatThrownBy(held::unlock).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void lockAtMostForEndsTheLockAndTheOldHoldersUnlockLeavesTheNewHolderAlone(TestInfo test) throws Exception {
        String name = name(test);
        try (LockClient one = newClient();
                LockClient two = newClient()) {
            FencedLockProvider first = new FencedLockProvider(one);
            FencedLockProvider second = new FencedLockProvider(two);
            FencedSimpleLock stale = (FencedSimpleLock) first.lock(config(name, Duration.ofMillis(600), Duration.ZERO))
                    .orElseThrow();
            SimpleLock next = awaitLock(second, name, "the lock free after lockAtMostFor");
            assertThat(stale.lease().isValid()).isFalse();
            assertThat(((FencedSimpleLock) next).token()).isGreaterThan(stale.token());

            stale.unlock();
            assertThat(first.lock(config(name, AT_MOST, Duration.ZERO)))
                    .as("the expired holder's unlock released nothing of the new holder's")
                    .isEmpty();
            next.unlock();
        }
    }

    @Test
    void lockAtLeastForKeepsTheLockAfterUnlockUntilItPasses(TestInfo test) throws Exception {
        String name = name(test);
        try (LockClient one = newClient();
                LockClient two = newClient()) {
            FencedLockProvider first = new FencedLockProvider(one);
            FencedLockProvider second = new FencedLockProvider(two);
            Instant created = Instant.now();
            Duration atLeast = Duration.ofMillis(1000);
            SimpleLock held = first.lock(new LockConfiguration(created, name, AT_MOST, atLeast))
                    .orElseThrow();
            held.unlock();
            assertThat(second.lock(config(name, AT_MOST, Duration.ZERO)))
                    .as("unlocked, but lockAtLeastFor has not passed")
                    .isEmpty();
            SimpleLock next = awaitLock(second, name, "the lock free after lockAtLeastFor");
            assertThat(Instant.now()).isAfterOrEqualTo(created.plus(atLeast));
            next.unlock();
        }
    }

    /**
     * "At most once per period": lockAtLeastFor = lockAtMostFor. No other instance gets the lock
     * before lockAtLeastUntil, neither after an early unlock nor while the task still runs. A grant
     * that returned before that instant certainly came before it.
     */
    @Test
    void lockAtLeastForEqualToLockAtMostForKeepsTheLockUntilThen(TestInfo test) throws Exception {
        String name = name(test);
        Duration period = AT_MOST; // its lease, drift allowance included, within the test servers' quarantine
        try (LockClient one = newClient();
                LockClient two = newClient()) {
            FencedLockProvider first = new FencedLockProvider(one);
            FencedLockProvider second = new FencedLockProvider(two);
            for (boolean unlockAtOnce : new boolean[] {true, false}) {
                LockConfiguration both = new LockConfiguration(Instant.now(), name, period, period);
                SimpleLock held = first.lock(both).orElseThrow();
                if (unlockAtOnce) {
                    held.unlock();
                }
                Optional<SimpleLock> next = Optional.empty();
                Instant returned = Instant.now();
                while (next.isEmpty()) {
                    assertThat(returned)
                            .as("still refused long after")
                            .isBefore(both.getLockAtLeastUntil().plus(AWAIT));
                    next = second.lock(config(name, AT_MOST, Duration.ZERO));
                    returned = Instant.now();
                    Thread.sleep(1);
                }
                assertThat(returned)
                        .as("another instance's grant returned (task unlocked at once: %s)", unlockAtOnce)
                        .isAfterOrEqualTo(both.getLockAtLeastUntil());
                next.get().unlock();
                if (!unlockAtOnce) {
                    held.unlock();
                }
            }
        }
    }

    /** A lockAtMostFor that no lease of the backend covers is an error, not "locked elsewhere". */
    @Test
    void aLockAtMostForBelowTheBackendsSmallestLeaseIsRefusedNotSkipped(TestInfo test) throws Exception {
        Assumptions.assumeTrue(minimumLease().isPresent(), "the backend grants leases of any length");
        String name = name(test);
        try (LockClient one = newClient()) {
            FencedLockProvider provider = new FencedLockProvider(one);
            assertThatThrownBy(() -> provider.lock(config(name, Duration.ofMillis(2), Duration.ZERO)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockAtMostFor 2ms of lock '" + name + "'")
                    .hasMessageContaining("smallest lease the " + one.config().backend() + " backend grants, "
                            + minimumLease().orElseThrow());
            provider.lock(config(name, AT_MOST, Duration.ZERO)).orElseThrow().unlock();
        }
    }

    @Test
    void unlockAfterLockAtLeastForReleasesAtOnce(TestInfo test) throws Exception {
        String name = name(test);
        try (LockClient one = newClient();
                LockClient two = newClient()) {
            FencedLockProvider first = new FencedLockProvider(one);
            SimpleLock held = first.lock(new LockConfiguration(
                            Instant.now().minusSeconds(5), name, Duration.ofSeconds(6), Duration.ofSeconds(1)))
                    .orElseThrow();
            held.unlock();
            new FencedLockProvider(two)
                    .lock(config(name, AT_MOST, Duration.ZERO))
                    .orElseThrow()
                    .unlock();
        }
    }

    @Test
    void extendGivesANewLockOnTheSameLeaseAndEndsTheOldOne(TestInfo test) throws Exception {
        String name = name(test);
        try (LockClient one = newClient();
                LockClient two = newClient()) {
            FencedLockProvider first = new FencedLockProvider(one);
            FencedLockProvider second = new FencedLockProvider(two);
            FencedSimpleLock held = (FencedSimpleLock) first.lock(config(name, Duration.ofMillis(700), Duration.ZERO))
                    .orElseThrow();
            FencedSimpleLock extended =
                    (FencedSimpleLock) held.extend(AT_MOST, Duration.ZERO).orElseThrow();
            assertThat(extended.token()).isEqualTo(held.token());
            assertThatThrownBy(held::unlock).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> held.extend(AT_MOST, Duration.ZERO)).isInstanceOf(IllegalStateException.class);

            Thread.sleep(900);
            assertThat(second.lock(config(name, AT_MOST, Duration.ZERO)))
                    .as("past the first lockAtMostFor, held by the extension")
                    .isEmpty();
            extended.unlock();
            second.lock(config(name, AT_MOST, Duration.ZERO)).orElseThrow().unlock();
        }
    }

    @Test
    void anExpiredLockCannotBeExtendedBackToLife(TestInfo test) throws Exception {
        String name = name(test);
        try (LockClient one = newClient();
                LockClient two = newClient()) {
            FencedSimpleLock held = (FencedSimpleLock) new FencedLockProvider(one)
                    .lock(config(name, Duration.ofMillis(400), Duration.ZERO))
                    .orElseThrow();
            Await.until("the lease run out", AWAIT, () -> !held.lease().isValid());
            assertThat(held.extend(AT_MOST, Duration.ZERO)).isEmpty();
            SimpleLock other = awaitLock(new FencedLockProvider(two), name, "the lock free for another instance");
            other.unlock();
        }
    }

    @Test
    void keepAliveLockProviderKeepsALongTasksLockAndReleasesItAtTheEnd(TestInfo test) throws Exception {
        String name = name(test);
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (LockClient one = newClient();
                LockClient two = newClient()) {
            LockProvider keepAlive =
                    ShortKeepAlive.wrap(new FencedLockProvider(one), scheduler, Duration.ofMillis(100));
            FencedLockProvider second = new FencedLockProvider(two);
            // renewed every 100 ms, so a loaded machine must stall a renewal for 1.5 s to lose it
            SimpleLock held = keepAlive
                    .lock(config(name, Duration.ofMillis(1500), Duration.ZERO))
                    .orElseThrow();
            try {
                long until = System.nanoTime() + Duration.ofMillis(4000).toNanos();
                while (System.nanoTime() < until) {
                    assertThat(second.lock(config(name, AT_MOST, Duration.ZERO)))
                            .as("kept alive past several lockAtMostFor")
                            .isEmpty();
                    Thread.sleep(100);
                }
            } finally {
                // also when the check fails: the lease is bound to this thread until unlock
                held.unlock();
            }
            second.lock(config(name, AT_MOST, Duration.ZERO)).orElseThrow().unlock();
        } finally {
            scheduler.shutdownNow();
        }
    }

    /** Eight threads, two names, an unsynchronised read-sleep-write counter per name: nothing lost. */
    @Test
    void eightThreadsOnTwoNamesLoseNoIncrement(TestInfo test) throws Exception {
        String base = name(test);
        List<String> names = List.of(base + ":a", base + ":b");
        Map<String, long[]> counters = new ConcurrentHashMap<>();
        names.forEach(n -> counters.put(n, new long[1]));
        Map<String, AtomicInteger> done = new ConcurrentHashMap<>();
        names.forEach(n -> done.put(n, new AtomicInteger()));
        AtomicLong lastToken = new AtomicLong();
        int perThread = 6;
        List<LockClient> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                LockClient client = newClient();
                clients.add(client);
                FencedLockProvider provider = new FencedLockProvider(client);
                String name = names.get(t % 2);
                futures.add(threads.submit(() -> {
                    int mine = 0;
                    while (mine < perThread) {
                        Optional<SimpleLock> lock = provider.lock(config(name, AT_MOST, Duration.ZERO));
                        if (lock.isEmpty()) {
                            Thread.sleep(5);
                            continue;
                        }
                        try {
                            long[] counter = counters.get(name);
                            long read = counter[0];
                            Thread.sleep(3);
                            counter[0] = read + 1;
                            lastToken.accumulateAndGet(((FencedSimpleLock) lock.get()).token(), Math::max);
                        } finally {
                            lock.get().unlock();
                        }
                        done.get(name).incrementAndGet();
                        mine++;
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(2, TimeUnit.MINUTES);
            }
        } finally {
            threads.shutdownNow();
            clients.forEach(LockClient::close);
        }
        for (String name : names) {
            assertThat(counters.get(name)[0])
                    .as(name)
                    .isEqualTo(done.get(name).get())
                    .isEqualTo(4L * perThread);
        }
        assertThat(lastToken.get()).isPositive();
    }
}
