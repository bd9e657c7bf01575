package dev.fencedlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockException;
import dev.fencedlock.LockTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour every backend must show, pinned once. A provider's test extends this class,
 * supplies a configuration pointing at real servers and a way to make the backend lose a lease,
 * and inherits every test.
 *
 * <p>Each test uses lock names of its own, so subclasses may share servers across tests. Clients
 * made with {@link #newClient} are closed after each test.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class LockContractTest {
    private final List<LockClient> clients = Collections.synchronizedList(new ArrayList<>());
    private String testName;

    /**
     * A configuration for this backend, pointing at the test servers; the suite sets lease times.
     * A backend's own keys go in with {@code set}, e.g. {@code
     * LockConfig.builder().backend("mine").set("fencedlock.mine.url", url)}.
     */
    protected abstract LockConfig.Builder configuration();

    /**
     * Makes the backend drop {@code lease}'s grant behind the holder's back, as an operator deleting
     * the lock key or an expired session would. The holder must learn of it only through the backend.
     */
    protected abstract void breakLease(Lease lease) throws Exception;

    /** Lease time for tests of renewal and expiry; long enough for this backend's round trips. */
    protected Duration shortLease() {
        return Duration.ofMillis(600);
    }

    /** How many threads hammer one lock in the mutual-exclusion test, and how often each. */
    protected int contenders() {
        return 8;
    }

    protected int roundsPerContender() {
        return 25;
    }

    @BeforeEach
    void rememberTestName(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
    }

    @AfterEach
    void closeClients() {
        synchronized (clients) {
            for (LockClient client : clients) {
                client.close();
            }
            clients.clear();
        }
    }

    /** A new client of this backend with the given lease time, closed after the test. */
    protected final LockClient newClient(Duration leaseTime) {
        LockClient client = createClient(configuration().leaseTime(leaseTime).build());
        clients.add(client);
        return client;
    }

    /**
     * Opens a client on {@code config}; by default {@link LockClient#create}. A backend whose
     * clients are built in code (for example on a data source the test owns) overrides it.
     */
    protected LockClient createClient(LockConfig config) {
        return LockClient.create(config);
    }

    /** A lock name no other test uses. */
    protected final String uniqueName() {
        return "contract:" + testName + ":" + UUID.randomUUID();
    }

    @Test
    void manyThreadsOnTwoClientsNeverOverlapAndLoseNoUpdate() throws Exception {
        LockClient first = newClient(Duration.ofSeconds(5));
        LockClient second = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        AtomicInteger occupancy = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        long[] plainCounter = {0};
        List<Long> tokensInGrantOrder = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(contenders());
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < contenders(); t++) {
                FencedLock lock = (t % 2 == 0 ? first : second).lock(name);
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < roundsPerContender(); i++) {
                        try (Lease lease = lock.acquire(Duration.ofSeconds(60))) {
                            if (occupancy.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            tokensInGrantOrder.add(lease.token());
                            long read = plainCounter[0];
                            Thread.yield();
                            plainCounter[0] = read + 1;
                            occupancy.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(100, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        int total = contenders() * roundsPerContender();
        assertThat(overlaps.get())
                .as("critical sections entered while another was inside")
                .isZero();
        assertThat(plainCounter[0])
                .as("plain counter after %d critical sections", total)
                .isEqualTo(total);
        assertThat(tokensInGrantOrder).hasSize(total);
        assertStrictlyIncreasing(tokensInGrantOrder);
    }

    @Test
    void tokensStrictlyIncreaseOverSuccessiveGrantsFromDifferentClients() throws Exception {
        LockClient first = newClient(Duration.ofSeconds(5));
        LockClient second = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            LockClient client = i % 3 == 0 ? first : second;
            Duration wait = Duration.ofSeconds(10);
            try (Lease lease = i % 2 == 0
                    ? client.lock(name).acquire(wait)
                    : client.lock(name).acquire(wait, wait)) {
                tokens.add(lease.token());
            }
        }
        assertStrictlyIncreasing(tokens);
    }

    @Test
    void tryAcquireIsEmptyWhileHeldEvenFromTheHoldingThread() throws Exception {
        LockClient client = newClient(Duration.ofSeconds(5));
        LockClient other = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        FencedLock lock = client.lock(name);
        try (Lease lease = lock.acquire(Duration.ofSeconds(10))) {
            assertThat(lock.tryAcquire(Duration.ZERO))
                    .as("same thread, same lock object")
                    .isEmpty();
            assertThat(client.lock(name).tryAcquire(Duration.ofMillis(200)))
                    .as("same thread, new lock object, short wait")
                    .isEmpty();
            assertThat(other.lock(name).tryAcquire(Duration.ZERO))
                    .as("another client")
                    .isEmpty();
            assertThat(lease.isValid()).isTrue();
        }
        Optional<Lease> afterRelease = other.lock(name).tryAcquire(Duration.ofSeconds(5));
        assertThat(afterRelease).as("free again after close").isPresent();
        afterRelease.get().close();
    }

    @Test
    void acquireGivesUpWithTimeoutAfterAboutTheWait() throws Exception {
        LockClient client = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        Duration wait = Duration.ofMillis(700);
        try (Lease held = client.lock(name).acquire(Duration.ofSeconds(10))) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.lock(name).acquire(wait))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining("whole wait of 700ms");
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(elapsedMillis).as("elapsed ms before giving up").isBetween(wait.toMillis() - 20, 10_000L);
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void closeTwiceIsHarmlessAndEndsTheLease() throws Exception {
        LockClient client = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        Lease lease = client.lock(name).acquire(Duration.ofSeconds(10));
        lease.close();
        lease.close();
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.remaining()).isEqualTo(Duration.ZERO);
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(1))).isInstanceOf(LeaseLostException.class);
        try (Lease next = client.lock(name).acquire(Duration.ofSeconds(5))) {
            lease.close();
            assertThat(next.isValid()).isTrue();
            assertThat(next.token()).isGreaterThan(lease.token());
        }
    }

    @Test
    void closingAnExpiredLeaseDoesNotReleaseTheNextHolder() throws Exception {
        LockClient stale = newClient(Duration.ofSeconds(5));
        LockClient current = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        Lease expired = stale.lock(name).acquire(Duration.ofSeconds(10), shortLease());
        CountDownLatch lost = new CountDownLatch(1);
        CompletableFuture<LeaseLostException> loss = new CompletableFuture<>();
        expired.onLost((lease, cause) -> {
            loss.complete(cause);
            lost.countDown();
        });
        assertThat(lost.await(shortLease().toMillis() + 10_000, TimeUnit.MILLISECONDS))
                .as("fixed lease reported lost when it ran out")
                .isTrue();
        assertThat(loss.getNow(null).reason()).isEqualTo(LeaseLostException.Reason.EXPIRED);
        try (Lease next = current.lock(name).acquire(Duration.ofSeconds(10))) {
            expired.close();
            assertThat(next.isValid()).isTrue();
            assertThat(stale.lock(name).tryAcquire(Duration.ZERO))
                    .as("lock still held by the next holder after the stale close")
                    .isEmpty();
            assertThat(next.token()).isGreaterThan(expired.token());
        }
    }

    @Test
    void closingALeaseWhoseGrantTheBackendDroppedDoesNotReleaseTheNextHolder() throws Exception {
        LockClient stale = newClient(Duration.ofSeconds(5));
        LockClient current = newClient(Duration.ofSeconds(5));
        LockClient third = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        Lease dropped = stale.lock(name).acquire(Duration.ofSeconds(10), Duration.ofSeconds(60));
        breakLease(dropped);
        try (Lease next = current.lock(name).acquire(Duration.ofSeconds(30))) {
            dropped.close();
            assertThat(third.lock(name).tryAcquire(Duration.ZERO))
                    .as("lock still held by the next holder after the dropped lease was closed")
                    .isEmpty();
            next.extend(Duration.ofSeconds(5));
            assertThat(next.isValid()).isTrue();
            assertThat(next.token()).isGreaterThan(dropped.token());
        }
    }

    @Test
    void extendOnALostLeaseThrowsLeaseLost() throws Exception {
        LockClient client = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        Lease lease = client.lock(name).acquire(Duration.ofSeconds(10), shortLease());
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost((l, cause) -> lost.countDown());
        assertThat(lost.await(shortLease().toMillis() + 10_000, TimeUnit.MILLISECONDS))
                .isTrue();
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(5)))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining(name);
        lease.close();
    }

    @Test
    void extendKeepsAFixedLeaseBeyondItsOriginalEnd() throws Exception {
        LockClient client = newClient(Duration.ofSeconds(5));
        LockClient other = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(10), shortLease())) {
            lease.extend(shortLease().multipliedBy(6));
            Thread.sleep(shortLease().multipliedBy(2).toMillis());
            assertThat(lease.isValid()).as("valid past the original lease time").isTrue();
            assertThat(other.lock(name).tryAcquire(Duration.ZERO)).isEmpty();
        }
    }

    /**
     * A fixed lease cut short by {@code extend} ends at the new time: invalid then, {@code onLost}
     * told once then (not at the old end), and the backend frees the lock for the next holder then.
     */
    @Test
    void extendToAShorterTimeMovesTheLossAndFreesTheLockThen() throws Exception {
        LockClient client = newClient(Duration.ofSeconds(5));
        LockClient other = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        Duration shorter = shortLease();
        Duration original = shorter.plus(Duration.ofSeconds(10));
        // what a loaded machine may add; below the 10 s to the old end, and below the time a backend
        // re-checks its grant on its own (ZooKeeper: 5/12 of the session timeout, about 4 s here)
        Duration margin = Duration.ofMillis(2500);
        Lease lease = client.lock(name).acquire(Duration.ofSeconds(10), original);
        AtomicInteger reports = new AtomicInteger();
        CountDownLatch lost = new CountDownLatch(1);
        long[] lostAt = new long[1];
        lease.onLost((l, cause) -> {
            lostAt[0] = System.nanoTime();
            reports.incrementAndGet();
            lost.countDown();
        });
        long extendedAt = System.nanoTime();
        lease.extend(shorter);
        Optional<Lease> next = other.lock(name).tryAcquire(shorter.plus(margin));
        long nextAt = System.nanoTime();
        assertThat(next)
                .as("another client gets the lock soon after the new end, long before the old one")
                .isPresent();
        assertThat(lease.isValid())
                .as("the shortened lease once the next holder has the lock")
                .isFalse();
        assertThat(Duration.ofNanos(nextAt - extendedAt))
                .as("from extend to the next grant")
                .isLessThan(shorter.plus(margin));
        assertThat(lost.await(margin.toMillis(), TimeUnit.MILLISECONDS))
                .as("onLost told when the shortened lease ran out")
                .isTrue();
        assertThat(Duration.ofNanos(lostAt[0] - extendedAt))
                .as("from extend to onLost")
                .isBetween(shorter.multipliedBy(9).dividedBy(10), shorter.plus(margin));
        assertThat(next.get().token()).isGreaterThan(lease.token());
        lease.close();
        next.get().close();
        assertThat(reports.get()).as("loss reports").isEqualTo(1);
    }

    @Test
    void autoRenewingLeaseSurvivesSeveralLeaseLengths() throws Exception {
        LockClient client = newClient(shortLease());
        LockClient other = newClient(shortLease());
        String name = uniqueName();
        AtomicInteger lossReports = new AtomicInteger();
        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(10))) {
            lease.onLost((l, cause) -> lossReports.incrementAndGet());
            Thread.sleep(shortLease().multipliedBy(4).toMillis());
            assertThat(lease.isValid()).as("valid after four lease lengths").isTrue();
            assertThat(other.lock(name).tryAcquire(Duration.ZERO)).isEmpty();
            assertThat(lossReports.get()).isZero();
        }
    }

    @Test
    void fixedLeaseExpiresAndTheLockCanBeTakenAgain() throws Exception {
        LockClient client = newClient(Duration.ofSeconds(5));
        LockClient other = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        Lease fixed = client.lock(name).acquire(Duration.ofSeconds(10), shortLease());
        CountDownLatch lost = new CountDownLatch(1);
        AtomicReference<LeaseLostException> reason = new AtomicReference<>();
        fixed.onLost((l, cause) -> {
            reason.set(cause);
            lost.countDown();
        });
        Optional<Lease> next = other.lock(name).tryAcquire(shortLease().plus(Duration.ofSeconds(10)));
        assertThat(next)
                .as("another client gets the lock once the fixed lease ran out")
                .isPresent();
        assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(fixed.isValid()).isFalse();
        assertThat(reason.get()).hasMessageContaining(name);
        assertThat(next.get().token()).isGreaterThan(fixed.token());
        next.get().close();
        fixed.close();
    }

    @Test
    void onLostFiresExactlyOnceWhenTheBackendDropsTheLease() throws Exception {
        LockClient client = newClient(shortLease());
        String name = uniqueName();
        Lease lease = client.lock(name).acquire(Duration.ofSeconds(10));
        AtomicInteger reports = new AtomicInteger();
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost((l, cause) -> {
            reports.incrementAndGet();
            lost.countDown();
        });
        breakLease(lease);
        assertThat(lost.await(shortLease().toMillis() * 3 + 10_000, TimeUnit.MILLISECONDS))
                .as("onLost fired after the backend dropped the lease")
                .isTrue();
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(() -> lease.extend(shortLease())).isInstanceOf(LeaseLostException.class);
        CompletableFuture<LeaseLostException> late = new CompletableFuture<>();
        lease.onLost((l, cause) -> late.complete(cause));
        assertThat(late.getNow(null))
                .as("a listener added after the loss is told at once")
                .isNotNull();
        assertThat(late.getNow(null).reason())
                .as("the lock was found held by no one or another grant")
                .isEqualTo(LeaseLostException.Reason.TAKEN_OVER);
        lease.close();
        Thread.sleep(shortLease().toMillis());
        assertThat(reports.get()).as("loss reports").isEqualTo(1);
    }

    @Test
    void interruptingAWaitingAcquireStopsItPromptlyAndHoldsNothing() throws Exception {
        LockClient client = newClient(Duration.ofSeconds(5));
        LockClient other = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread waiter;
        try (Lease held = client.lock(name).acquire(Duration.ofSeconds(10))) {
            waiter = new Thread(() -> {
                started.countDown();
                try (Lease unexpected = other.lock(name).acquire(Duration.ofSeconds(60))) {
                    outcome.set(new AssertionError("acquired while held, token " + unexpected.token()));
                } catch (Throwable t) {
                    outcome.set(t);
                }
            });
            waiter.start();
            assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
            awaitBlocked(waiter);
            long interruptedAt = System.nanoTime();
            waiter.interrupt();
            waiter.join(5_000);
            assertThat(waiter.isAlive())
                    .as("waiter still blocked after interrupt")
                    .isFalse();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - interruptedAt))
                    .isLessThan(5_000);
            assertThat(held.isValid()).isTrue();
        }
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        Optional<Lease> free = client.lock(name).tryAcquire(Duration.ofSeconds(5));
        assertThat(free).as("the interrupted waiter left nothing held").isPresent();
        free.get().close();
    }

    @Test
    void closingTheClientReleasesItsLeases() throws Exception {
        LockClient closing = newClient(Duration.ofSeconds(30));
        LockClient other = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        Lease lease = closing.lock(name).acquire(Duration.ofSeconds(10));
        closing.close();
        assertThat(lease.isValid()).isFalse();
        Optional<Lease> next = other.lock(name).tryAcquire(Duration.ofSeconds(5));
        assertThat(next)
                .as("free well before the 30 s lease would have run out")
                .isPresent();
        next.get().close();
        assertThatThrownBy(() -> closing.lock(name)).isInstanceOf(IllegalStateException.class);
        FencedLock obtainedBeforeClose = other.lock(name);
        other.close();
        assertThatThrownBy(() -> obtainedBeforeClose.tryAcquire(Duration.ZERO))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    /**
     * Empty means only that another holder has the lock: a fixed lease too short for the backend
     * (eaten by its drift allowance, or spent on the grant's round trip) is an error that says so,
     * or a grant, never an empty result on a free lock.
     */
    @Test
    void aLeaseTooShortForTheBackendIsAnErrorOrAGrantNeverEmpty() throws Exception {
        LockClient client = newClient(Duration.ofSeconds(5));
        String name = uniqueName();
        for (Duration tiny : List.of(Duration.ofNanos(1), Duration.ofMillis(2))) {
            Optional<Lease> lease;
            try {
                lease = client.lock(name).tryAcquire(Duration.ZERO, tiny);
            } catch (IllegalArgumentException e) {
                assertThat(e).hasMessageContaining(name).hasMessageContaining("smallest lease");
                continue;
            } catch (LockException e) {
                assertThat(e).hasMessageContaining(name).hasMessageContaining("ran out before the grant");
                continue;
            }
            assertThat(lease).as("a free lock, lease time %s", tiny).isPresent();
            lease.get().close();
        }
        client.lock(name)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(5))
                .orElseThrow()
                .close();
    }

    @Test
    void badArgumentsFailFastWithClearMessages() {
        LockClient client = newClient(Duration.ofSeconds(5));
        FencedLock lock = client.lock(uniqueName());
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wait");
        assertThatThrownBy(() -> lock.acquire(Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> lock.acquire(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.lock(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
        assertThatThrownBy(() -> client.lock("x".repeat(257)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("256");
    }

    /** Returns once {@code thread} is parked or waiting, that is, blocked inside the acquire. */
    private static void awaitBlocked(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("waiter blocked within 10 s").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    /** Fails with the first pair that is not strictly increasing. */
    protected static void assertStrictlyIncreasing(List<Long> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i))
                    .as("token #%d (%d) must exceed token #%d (%d)", i, tokens.get(i), i - 1, tokens.get(i - 1))
                    .isGreaterThan(tokens.get(i - 1));
        }
    }
}
