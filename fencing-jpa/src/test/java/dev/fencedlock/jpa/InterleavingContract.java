package dev.fencedlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.local.LocalLockFaults;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two fenced read-modify-write transactions on one row, in every interleaving of their steps
 * (read, write and flush, commit), at every isolation level of interest: either two overlapping
 * holders of one lock (the lock broken with {@link LocalLockFaults#loseLease}, so both leases are
 * valid), or two transactions under one lease. Invariants: no lost update (the quantity drops by
 * exactly the number of commits, and no two commits wrote from the same read), at least one
 * commits, and the older token never commits after the newer one's transaction began.
 *
 * <p>By default the database's own isolation and SERIALIZABLE run; {@code
 * -Dfencedlock.test.isolation=all} adds READ COMMITTED and REPEATABLE READ.
 *
 * <p>A step runs on its actor's own thread. The next step is started when the previous one has
 * finished or has not finished within {@link #BLOCKED} (it waits for the other transaction's fence
 * row); the outcome is checked after every step has finished, so a slow machine only changes which
 * interleaving really ran, never the verdict.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class InterleavingContract {
    private static final Duration LEASE = Duration.ofMinutes(2);
    private static final long BLOCKED = 100;
    private static final long FINISH_SECONDS = 60;
    private static final int INITIAL = 10;

    enum Step {
        READ,
        WRITE,
        COMMIT
    }

    enum Holders {
        OVERLAPPING,
        ONE_LEASE
    }

    private final AtomicLong ids = new AtomicLong(1);
    private final AtomicLong clock = new AtomicLong();
    private final Map<String, EntityManagerFactory> factories = new HashMap<>();
    private FencedUnit unit;
    private TestLocks locks;

    protected abstract TestDatabase.Kind kind();

    @BeforeAll
    void open() {
        unit = FencedUnit.open(kind());
        locks = new TestLocks();
    }

    @AfterAll
    void close() {
        locks.close();
        unit.close();
    }

    /**
     * The database's default isolation and SERIALIZABLE; with {@code -Dfencedlock.test.isolation=all}
     * also READ COMMITTED and REPEATABLE READ (each adds 40 cases per database).
     */
    static Stream<Arguments> cases() {
        List<String> isolations = "all".equals(System.getProperty("fencedlock.test.isolation"))
                ? List.of(
                        "DEFAULT",
                        "TRANSACTION_READ_COMMITTED",
                        "TRANSACTION_REPEATABLE_READ",
                        "TRANSACTION_SERIALIZABLE")
                : List.of("DEFAULT", "TRANSACTION_SERIALIZABLE");
        List<Arguments> cases = new ArrayList<>();
        for (String isolation : isolations) {
            for (Holders holders : Holders.values()) {
                for (String order : interleavings("", 0, 0)) {
                    cases.add(Arguments.of(isolation, holders, order));
                }
            }
        }
        return cases.stream();
    }

    /**
     * H2 keeps a SERIALIZABLE transaction's snapshot across its wait for the fence row, so a fenced
     * transaction could commit from a read that missed the previous holder's commit: the guard
     * refuses to begin one, before anything runs.
     */
    private void assertSerializableRefusedOnH2(EntityManagerFactory emf) throws Exception {
        try (Lease lease = locks.lock("interleaving:" + UUID.randomUUID()).acquire(Duration.ofSeconds(10), LEASE);
                FencingScope scope = Fencing.bind(lease);
                EntityManager em = emf.createEntityManager()) {
            assertThatThrownBy(() -> em.getTransaction().begin())
                    .as("a fenced transaction at SERIALIZABLE on H2")
                    .hasRootCauseInstanceOf(SQLFeatureNotSupportedException.class)
                    .rootCause()
                    .hasMessageContaining("cannot run at SERIALIZABLE on H2");
            assertThat(em.getTransaction().isActive()).isFalse();
        }
    }

    /** Every merge of a's and b's three steps, as strings like "aabbab". */
    private static List<String> interleavings(String prefix, int a, int b) {
        if (a == 3 && b == 3) {
            return List.of(prefix);
        }
        List<String> all = new ArrayList<>();
        if (a < 3) {
            all.addAll(interleavings(prefix + "a", a + 1, b));
        }
        if (b < 3) {
            all.addAll(interleavings(prefix + "b", a, b + 1));
        }
        return all;
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    void noLostUpdateAndTheOlderTokenNeverCommitsAfterTheNewer(String isolation, Holders holders, String order)
            throws Exception {
        EntityManagerFactory emf =
                factories.computeIfAbsent(isolation, i -> unit.factoryAt(i.equals("DEFAULT") ? null : i));
        if (kind() == TestDatabase.Kind.H2 && isolation.equals("TRANSACTION_SERIALIZABLE")) {
            assertSerializableRefusedOnH2(emf);
            return;
        }
        long id = ids.incrementAndGet();
        unit.db.execute("INSERT INTO fenced_item (id, sku, quantity) VALUES (?, 'x', ?)", id, INITIAL);
        FencedLock lock = locks.lock("interleaving:" + UUID.randomUUID());
        Lease older = lock.acquire(Duration.ofSeconds(10), LEASE);
        Lease newer = older;
        if (holders == Holders.OVERLAPPING) {
            LocalLockFaults.loseLease(lock.name());
            newer = lock.acquire(Duration.ofSeconds(10), LEASE);
            assertThat(older.isValid()).isTrue();
        }
        // actor a is the older holder: it may begin first, or second
        try (Actor a = new Actor(emf, older, id);
                Actor b = new Actor(emf, newer, id)) {
            int[] next = new int[2];
            for (char who : order.toCharArray()) {
                Actor actor = who == 'a' ? a : b;
                Step step = Step.values()[next[who - 'a']++];
                Future<?> done = actor.run(step);
                try {
                    done.get(BLOCKED, TimeUnit.MILLISECONDS);
                } catch (TimeoutException blocked) {
                    // waits for the other transaction: go on with the other actor's steps
                }
            }
            a.finish();
            b.finish();

            int committed = (a.committed ? 1 : 0) + (b.committed ? 1 : 0);
            assertThat(committed)
                    .as("at least one commits; a: %s, b: %s", a.failure, b.failure)
                    .isPositive();
            assertThat(unit.db.queryLong("SELECT quantity FROM fenced_item WHERE id = ?", id))
                    .as("no lost update; a: %s, b: %s", a.failure, b.failure)
                    .isEqualTo(INITIAL - committed);
            if (a.committed && b.committed) {
                assertThat(a.read).as("two commits from the same read").isNotEqualTo(b.read);
            }
            if (holders == Holders.OVERLAPPING && a.committed && b.began > 0) {
                assertThat(a.commitRequested)
                        .as("the older token committed after the newer one's transaction began")
                        .isLessThan(b.began);
            }
            if (holders == Holders.OVERLAPPING && b.committed) {
                assertThat(unit.db.queryLong("SELECT fence FROM fenced_item WHERE id = ?", id))
                        .isEqualTo(newer.token());
            }
        } finally {
            older.close();
            newer.close();
        }
    }

    /** One transaction, run step by step on its own thread. */
    private final class Actor implements AutoCloseable {
        private final ExecutorService thread = Executors.newSingleThreadExecutor();
        private final List<Future<?>> steps = new ArrayList<>();
        private final EntityManagerFactory emf;
        private final Lease lease;
        private final long id;
        private FencingScope scope;
        private EntityManager em;
        private Item item;
        volatile Throwable failure;
        volatile boolean committed;
        volatile int read = -1;
        volatile long began;
        volatile long commitRequested;

        Actor(EntityManagerFactory emf, Lease lease, long id) {
            this.emf = emf;
            this.lease = lease;
            this.id = id;
        }

        Future<?> run(Step step) {
            Future<?> future = thread.submit(() -> step(step));
            steps.add(future);
            return future;
        }

        private void step(Step step) {
            if (failure != null) {
                return;
            }
            try {
                switch (step) {
                    case READ -> {
                        scope = Fencing.bind(lease);
                        em = emf.createEntityManager();
                        em.getTransaction().begin();
                        item = em.find(Item.class, id);
                        // the guard has entered: at begin, or on PostgreSQL with the find
                        began = clock.incrementAndGet();
                        read = item.quantity();
                    }
                    case WRITE -> {
                        item.take(1);
                        em.flush();
                    }
                    case COMMIT -> {
                        commitRequested = clock.incrementAndGet();
                        em.getTransaction().commit();
                        committed = true;
                        end();
                    }
                }
            } catch (RuntimeException e) {
                failure = e;
                end();
            }
        }

        private void end() {
            if (em != null) {
                if (em.getTransaction().isActive()) {
                    em.getTransaction().rollback();
                }
                em.close();
                em = null;
            }
            if (scope != null) {
                scope.close();
                scope = null;
            }
        }

        void finish() throws Exception {
            for (Future<?> step : steps) {
                step.get(FINISH_SECONDS, TimeUnit.SECONDS);
            }
        }

        @Override
        public void close() throws Exception {
            thread.submit(this::end).get(FINISH_SECONDS, TimeUnit.SECONDS);
            thread.shutdown();
        }
    }
}
