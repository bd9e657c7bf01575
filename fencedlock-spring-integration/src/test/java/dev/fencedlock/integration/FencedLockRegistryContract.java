package dev.fencedlock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.testkit.await.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The lock contract of Spring Integration's registries, on one fencedlock backend: two registries
 * over two clients stand for two application instances. TTLs are short but above each backend's
 * clock-drift allowance.
 */
abstract class FencedLockRegistryContract {
    private static final Duration AWAIT = Duration.ofSeconds(20);
    private static final Duration TTL = Duration.ofMillis(1500);

    /** A new client of the backend under test; closed by the test. */
    protected abstract LockClient newClient();

    private static String key(TestInfo test) {
        return "si:" + test.getTestMethod().orElseThrow().getName() + ":" + System.nanoTime();
    }

    private static <T> T onOtherThread(java.util.concurrent.Callable<T> work) throws Exception {
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            return thread.submit(work).get(30, TimeUnit.SECONDS);
        } finally {
            thread.shutdownNow();
        }
    }

    /** Takes {@code lock} on this thread with a 500 ms TTL and returns its lease once that ran out. */
    private static Lease holdUntilItRunsOut(FencedDistributedLock lock) throws InterruptedException {
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(500))).isTrue();
        Lease lease = lock.lease().orElseThrow();
        Await.until("the first hold's TTL passed", AWAIT, () -> !lease.isValid());
        return lease;
    }

    @Test
    void reentrantForTheOwnerAndRefusedToOtherThreadsAndInstances(TestInfo test) throws Exception {
        String key = key(test);
        try (LockClient one = newClient();
                LockClient two = newClient()) {
            FencedLockRegistry first = new FencedLockRegistry(one, TTL);
            FencedLockRegistry second = new FencedLockRegistry(two, TTL);
            DistributedLock lock = first.obtain(key);
            assertThat(first.obtain(key)).isSameAs(lock);
            lock.lock();
            assertThat(lock.tryLock()).as("re-entry").isTrue();
            long token = first.obtain(key).lease().orElseThrow().token();
            assertThat(onOtherThread(() -> lock.tryLock())).as("another thread").isFalse();
            assertThat(onOtherThread(() -> second.obtain(key).tryLock()))
                    .as("another instance")
                    .isFalse();
            assertThatThrownBy(() -> onOtherThread(() -> {
                        lock.unlock();
                        return null;
                    }))
                    .hasCauseInstanceOf(IllegalStateException.class);
            lock.unlock();
            assertThat(onOtherThread(() -> second.obtain(key).tryLock()))
                    .as("still held once")
                    .isFalse();
            lock.unlock();
            assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);

            DistributedLock other = second.obtain(key);
            assertThat(other.tryLock(Duration.ofSeconds(5), TTL)).isTrue();
            assertThat(second.obtain(key).lease().orElseThrow().token()).isGreaterThan(token);
            other.unlock();
        }
    }

    @Test
    void anUnlockAfterTheTtlThrowsAndLeavesTheNewHolderAlone(TestInfo test) throws Exception {
        String key = key(test);
        try (LockClient one = newClient();
                LockClient two = newClient()) {
            FencedDistributedLock stale = new FencedLockRegistry(one, TTL).obtain(key);
            FencedDistributedLock next = new FencedLockRegistry(two, TTL).obtain(key);
            Lease old = holdUntilItRunsOut(stale);
            CompletableFuture<Long> taken = new CompletableFuture<>();
            ExecutorService thread = Executors.newSingleThreadExecutor();
            try {
                Future<?> holder = thread.submit(() -> {
                    assertThat(next.tryLock(AWAIT, TTL)).isTrue();
                    taken.complete(next.lease().orElseThrow().token());
                    Thread.sleep(500);
                    next.unlock();
                    return null;
                });
                assertThat(taken.get(30, TimeUnit.SECONDS)).isGreaterThan(old.token());
                assertThatThrownBy(stale::unlock).isInstanceOf(ConcurrentModificationException.class);
                assertThat(stale.tryLock()).as("the new holder still holds it").isFalse();
                holder.get(30, TimeUnit.SECONDS);
            } finally {
                thread.shutdownNow();
            }
        }
    }

    /**
     * A leader's lease lapses, another instance holds the lock and lets it go, then the old holder's
     * heartbeat re-enters: the re-entry fails instead of taking a new lease under the old hold, and
     * the last unlock reports the broken hold.
     */
    @Test
    void aReentryAfterTheTtlFailsAndTheLastUnlockThrows(TestInfo test) throws Exception {
        String key = key(test);
        try (LockClient one = newClient()) {
            FencedLockRegistry registry = new FencedLockRegistry(one, TTL);
            FencedDistributedLock stale = registry.obtain(key);
            Lease old = holdUntilItRunsOut(stale);
            long between = onOtherThread(() -> {
                try (LockClient two = newClient()) {
                    FencedDistributedLock other = new FencedLockRegistry(two, TTL).obtain(key);
                    assertThat(other.tryLock(AWAIT, TTL)).isTrue();
                    long token = other.lease().orElseThrow().token();
                    other.unlock();
                    return token;
                }
            });
            assertThat(between).isGreaterThan(old.token());

            assertThatThrownBy(stale::tryLock)
                    .as("re-entry into the broken hold")
                    .isInstanceOf(ConcurrentModificationException.class);
            assertThatThrownBy(() -> stale.tryLock(Duration.ofMillis(200), TTL))
                    .isInstanceOf(ConcurrentModificationException.class);
            assertThatThrownBy(stale::lock).isInstanceOf(ConcurrentModificationException.class);
            assertThatThrownBy(() -> registry.renewLock(key)).isInstanceOf(ConcurrentModificationException.class);
            assertThat(stale.lease()).as("no new lease under the old hold").containsSame(old);
            assertThatThrownBy(stale::unlock).isInstanceOf(ConcurrentModificationException.class);
            assertThatThrownBy(stale::unlock)
                    .as("the hold is gone after the throwing unlock")
                    .isInstanceOf(IllegalStateException.class);

            assertThat(stale.tryLock(AWAIT, TTL)).as("taken afresh").isTrue();
            assertThat(stale.lease().orElseThrow().token()).isGreaterThan(between);
            stale.unlock();
        }
    }

    @Test
    void aReentrantAcquisitionAndRenewLockRestartTheTtl(TestInfo test) throws Exception {
        String key = key(test);
        try (LockClient one = newClient();
                LockClient two = newClient()) {
            FencedLockRegistry first = new FencedLockRegistry(one, Duration.ofMillis(900));
            FencedLockRegistry second = new FencedLockRegistry(two, TTL);
            DistributedLock lock = first.obtain(key);
            lock.lock();
            for (int i = 0; i < 4; i++) {
                Thread.sleep(400);
                if (i % 2 == 0) {
                    assertThat(lock.tryLock()).isTrue();
                    lock.unlock();
                } else {
                    first.renewLock(key);
                }
            }
            assertThat(onOtherThread(() -> second.obtain(key).tryLock()))
                    .as("held past several TTLs")
                    .isFalse();
            assertThatThrownBy(() -> onOtherThread(() -> {
                        first.renewLock(key);
                        return null;
                    }))
                    .hasCauseInstanceOf(IllegalStateException.class);
            lock.unlock();
            assertThat(onOtherThread(() -> second.obtain(key).tryLock())).isTrue();
        }
    }

    @Test
    void obtainCachesUntilExpireUnusedDropsTheFreeOnes(TestInfo test) throws Exception {
        String key = key(test);
        try (LockClient one = newClient()) {
            FencedLockRegistry registry = new FencedLockRegistry(one, TTL);
            FencedDistributedLock held = registry.obtain(key + ":held");
            FencedDistributedLock free = registry.obtain(key + ":free");
            held.lock();
            free.lock();
            free.unlock();
            Thread.sleep(20);
            registry.expireUnusedOlderThan(0);
            assertThat(registry.obtain(key + ":held")).isSameAs(held);
            assertThat(registry.obtain(key + ":free")).isNotSameAs(free);
            held.unlock();
            assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void lockInterruptiblyAnswersAnInterrupt(TestInfo test) throws Exception {
        String key = key(test);
        try (LockClient one = newClient();
                LockClient two = newClient()) {
            DistributedLock held = new FencedLockRegistry(one, TTL).obtain(key);
            held.lock();
            AtomicReference<Throwable> outcome = new AtomicReference<>();
            Thread waiter = new Thread(() -> {
                try {
                    new FencedLockRegistry(two, TTL).obtain(key).lockInterruptibly();
                    outcome.set(new AssertionError("acquired a held lock"));
                } catch (Throwable e) {
                    outcome.set(e);
                }
            });
            waiter.start();
            Thread.sleep(300);
            waiter.interrupt();
            waiter.join(10_000);
            assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
            held.unlock();
        }
    }

    /** Eight threads, two keys, an unsynchronised read-sleep-write counter per key: nothing lost. */
    @Test
    void eightThreadsOnTwoKeysLoseNoIncrement(TestInfo test) throws Exception {
        String base = key(test);
        long[] counters = new long[2];
        int perThread = 5;
        List<LockClient> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<FencedLockRegistry> registries = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                LockClient client = newClient();
                clients.add(client);
                registries.add(new FencedLockRegistry(client, TTL));
            }
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                FencedLockRegistry registry = registries.get(t % 4);
                int slot = t % 2;
                futures.add(threads.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        DistributedLock lock = registry.obtain(base + ":" + slot);
                        lock.lock();
                        try {
                            long read = counters[slot];
                            Thread.sleep(3);
                            counters[slot] = read + 1;
                        } finally {
                            lock.unlock();
                        }
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
        assertThat(counters).containsExactly(4L * perThread, 4L * perThread);
    }
}
