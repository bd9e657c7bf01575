package dev.fencedlock.jpa;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.internal.local.LocalLockTable;
import dev.fencedlock.jpa.StaleFencingTokenException.Reason;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.RollbackException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.engine.spi.TransactionCompletionCallbacks.AfterCompletionCallback;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fencing guarantees of {@code fencing-jpa} against a real database, with real transactions
 * and real lock leases from the in-process {@code local} backend. Each subclass runs the same tests
 * on one database, with the lock fence off ({@link AbstractLockFenceIT} runs them with it on).
 * Ordering between the holders is fixed with latches. No test waits for time to pass: a lease
 * expires when the test moves the leases' clock past its end ({@link TestLocks#expire}), so the
 * steps before the expiry run under a lease that cannot run out, however slow the machine.
 *
 * <p>"Holder n" is the holder of the lease with the n-th token in the story of the issue: holder
 * 5's lease is older than holder 6's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractFencedWriteIT {
    static final Duration WAIT = Duration.ofSeconds(10);
    /** Longer than any test; leases end early only through {@link TestLocks#expire} or a forced release. */
    static final Duration LONG_LEASE = Duration.ofMinutes(2);

    private static final int ROUNDS = 20;

    final AtomicLong ids = new AtomicLong(1000);
    TestDatabase db;
    EntityManagerFactory emf;
    TestLocks locks;
    ExecutorService executor;

    protected abstract TestDatabase.Kind kind();

    /** Whether the persistence unit runs with the lock fence ({@link FencingSettings#LOCK_FENCE}). */
    boolean lockFence() {
        return false;
    }

    @BeforeAll
    void openDatabase() {
        db = TestDatabase.open(kind(), lockFence() ? Map.of(FencingSettings.LOCK_FENCE, true) : Map.of());
        emf = db.factory();
        locks = new TestLocks();
        executor = Executors.newCachedThreadPool();
    }

    @AfterAll
    void closeDatabase() {
        executor.shutdownNow();
        locks.close();
        db.close();
    }

    // ----- a) to f) of the issue -----

    /** a) holder 5 reads; its lease expires; holder 6 reads, writes, commits; holder 5 writes: refused. */
    @Test
    void a_writeAfterTheLeaseExpiredIsRefused() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        long token6;
        try (Holder holder5 = new Holder(lease5)) {
            Item item5 = holder5.em.find(Item.class, id);
            locks.expire(lease5);

            token6 = inOtherThread(() -> take(lock, id, 3));

            item5.take(1);
            StaleFencingTokenException stale = refused(holder5.em::flush, Reason.LEASE_NOT_VALID);
            assertThat(stale.lockName()).isEqualTo(lock.name());
            assertThat(stale.entityName()).contains(Item.class.getName());
            assertThat(stale.id()).contains(id);
            assertThat(stale.staleToken()).isEqualTo(lease5.token());
        }
        assertThat(token6).isGreaterThan(lease5.token());
        assertThat(quantityOf(id)).isEqualTo(7);
        assertThat(fenceOf(id)).isEqualTo(token6);
    }

    /**
     * b) after holder 5 read the row, a newer token was written into it (here by plain JDBC);
     * holder 5's lease still looks valid, so only the database condition can refuse the write.
     */
    @Test
    void b_rowRewrittenWithANewerTokenAfterTheReadIsRefusedByTheDatabase() throws Exception {
        long id = newItem(10);
        Lease lease5 = newLock().acquire(WAIT, LONG_LEASE);
        long newer = lease5.token() + 1_000;
        try (Holder holder5 = new Holder(lease5)) {
            Item item5 = holder5.em.find(Item.class, id);
            db.execute("UPDATE fenced_item SET quantity = 4, fence = ? WHERE id = ?", newer, id);

            item5.take(1);
            assertThat(lease5.isValid()).isTrue();
            StaleFencingTokenException stale = refused(holder5.em::flush, Reason.ROW_CHANGED);
            assertThat(stale.currentToken()).hasValue(newer);
            assertThat(stale.staleToken()).isEqualTo(lease5.token());
            assertThat(stale.getEntity()).isSameAs(item5);
            assertThat(lease5.isValid()).isTrue();
        }
        assertThat(quantityOf(id)).isEqualTo(4);
        assertThat(fenceOf(id)).isEqualTo(newer);
    }

    /**
     * c) holder 5 flushes its decrement and, still holding the row, stalls past its lease; holder 6
     * reads and decrements; then holder 5 commits late. In half the rounds holder 5's lease
     * expires (its late commit is refused, holder 6 wins); in the other half the lock is taken
     * from holder 5 while its lease still looks valid (holder 5's commit goes through and the
     * database refuses holder 6's write, which was based on a read taken before holder 5's write
     * landed). Whatever commits, no decrement is lost.
     */
    @Test
    void c_lateCommitOfAStalledHolderLosesNoUpdate() throws Exception {
        int initial = 1_000;
        long id = newItem(initial);
        FencedLock lock = newLock();
        int committed = 0;
        List<String> outcomes = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            boolean expire = round % 2 == 0;
            Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
            CountDownLatch holder6Read = new CountDownLatch(1);
            Future<Outcome> holder6;
            Outcome holder5;
            try (Holder h5 = new Holder(lease5)) {
                h5.em.find(Item.class, id).take(1);
                h5.em.flush();
                if (expire) {
                    locks.expire(lease5);
                } else {
                    LocalLockTable.SHARED.forceRelease(lock.name());
                }
                holder6 = executor.submit(() -> outcomeOf(() -> Fencing.inTransaction(lock, WAIT, emf, em -> {
                    em.find(Item.class, id).take(1);
                    holder6Read.countDown();
                    return null;
                })));
                await(holder6Read, "holder 6 read the row");
                holder5 = outcomeOf(() -> {
                    h5.em.getTransaction().commit();
                    return null;
                });
            }
            Outcome six = holder6.get(30, SECONDS);
            outcomes.add("round " + round + (expire ? " expired" : " taken") + ": holder 5 " + holder5 + ", holder 6 "
                    + six);
            if (expire) {
                assertThat(holder5.refusal).as(outcomes.toString()).isEqualTo(Reason.LEASE_NOT_VALID);
                assertThat(six.committed).as(outcomes.toString()).isTrue();
            } else {
                assertThat(holder5.committed).as(outcomes.toString()).isTrue();
                assertThat(six.refusal).as(outcomes.toString()).isEqualTo(Reason.ROW_CHANGED);
            }
            committed += (holder5.committed ? 1 : 0) + (six.committed ? 1 : 0);
            assertThat(quantityOf(id)).as(outcomes.toString()).isEqualTo(initial - committed);
        }
        assertThat(committed).isEqualTo(ROUNDS);
        assertThat(quantityOf(id)).isEqualTo(initial - ROUNDS);
    }

    /** d) two holders insert the same id, the newer one first: the stale one is refused. */
    @Test
    void d_staleInsertOfAnIdAlreadyWrittenByANewerHolderIsRefused() throws Exception {
        long id = ids.incrementAndGet();
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        long token6;
        try (Holder holder5 = new Holder(lease5)) {
            holder5.em.persist(new Item(id, "five", 5));
            LocalLockTable.SHARED.forceRelease(lock.name());
            token6 = inOtherThread(() -> Fencing.inTransaction(lock, WAIT, emf, em -> {
                em.persist(new Item(id, "six", 6));
                return Fencing.currentLease().orElseThrow().token();
            }));

            StaleFencingTokenException stale = refused(holder5.em::flush, Reason.DUPLICATE_ROW);
            assertThat(stale.currentToken()).hasValue(token6);
            assertThat(stale.staleToken()).isEqualTo(lease5.token());
        }
        assertThat(quantityOf(id)).isEqualTo(6);
        assertThat(fenceOf(id)).isEqualTo(token6);
    }

    /**
     * d) two holders insert the same id concurrently: holder 6's insert is not yet committed when
     * holder 5's arrives; holder 6 commits; holder 5 is refused.
     */
    @Test
    void d_concurrentStaleInsertIsRefusedOnceTheNewerInsertCommits() throws Exception {
        long id = ids.incrementAndGet();
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        LocalLockTable.SHARED.forceRelease(lock.name());
        Lease lease6 = lock.acquire(WAIT, LONG_LEASE);
        try (Holder holder6 = new Holder(lease6)) {
            holder6.em.persist(new Item(id, "six", 6));
            holder6.em.flush();

            CountDownLatch flushing5 = new CountDownLatch(1);
            Future<Outcome> holder5 = executor.submit(() -> {
                try (Holder h5 = new Holder(lease5)) {
                    h5.em.persist(new Item(id, "five", 5));
                    flushing5.countDown();
                    return outcomeOf(() -> {
                        h5.em.flush();
                        return null;
                    });
                }
            });
            await(flushing5, "holder 5 flushing its insert");
            holder6.em.getTransaction().commit();

            Outcome five = holder5.get(30, SECONDS);
            assertThat(five.refusal).as(five.toString()).isEqualTo(Reason.DUPLICATE_ROW);
            assertThat(five.current).isEqualTo(lease6.token());
        }
        assertThat(quantityOf(id)).isEqualTo(6);
        assertThat(fenceOf(id)).isEqualTo(lease6.token());
    }

    /** e) a delete by a stale holder whose lease still looks valid is refused by the database. */
    @Test
    void e_staleDeleteIsRefused() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        long token6;
        try (Holder holder5 = new Holder(lease5)) {
            Item item5 = holder5.em.find(Item.class, id);
            token6 = takeOver(lock, id, 2);

            holder5.em.remove(item5);
            StaleFencingTokenException stale = refused(holder5.em::flush, Reason.ROW_CHANGED);
            assertThat(stale.currentToken()).hasValue(token6);
        }
        assertThat(quantityOf(id)).isEqualTo(8);
        assertThat(fenceOf(id)).isEqualTo(token6);
    }

    /** e) a delete by a holder whose lease expired is refused. */
    @Test
    void e_deleteAfterTheLeaseExpiredIsRefused() throws Exception {
        long id = newItem(10);
        Lease lease5 = newLock().acquire(WAIT, LONG_LEASE);
        try (Holder holder5 = new Holder(lease5)) {
            holder5.em.remove(holder5.em.find(Item.class, id));
            locks.expire(lease5);
            refused(holder5.em::flush, Reason.LEASE_NOT_VALID);
        }
        assertThat(quantityOf(id)).isEqualTo(10);
    }

    /** f) with no lease bound, inserts, updates and deletes of fenced entities are refused. */
    @Test
    void f_writesWithoutABoundLeaseAreRefused() {
        long existing = newItem(10);
        long fresh = ids.incrementAndGet();
        EntityManager em = emf.createEntityManager();
        try {
            em.getTransaction().begin();
            assertThatThrownBy(() -> em.persist(new Item(fresh, "new", 1)))
                    .isInstanceOf(NoLeaseBoundException.class)
                    .hasMessageContaining("insert")
                    .hasMessageContaining(Item.class.getName());
            em.getTransaction().rollback();

            em.getTransaction().begin();
            em.find(Item.class, existing).take(1);
            assertThatThrownBy(em::flush).isInstanceOf(NoLeaseBoundException.class);
            em.getTransaction().rollback();
            em.clear();

            em.getTransaction().begin();
            Item item = em.find(Item.class, existing);
            assertThatThrownBy(() -> em.remove(item)).isInstanceOf(NoLeaseBoundException.class);
            em.getTransaction().rollback();

            em.getTransaction().begin();
            assertThatThrownBy(() -> Fencing.fencedUpdate(
                            em,
                            Item.class,
                            (cb, root) -> cb.equal(root.get("id"), existing),
                            (cb, update, root) -> update.set(root.<Integer>get("quantity"), 0)))
                    .isInstanceOf(NoLeaseBoundException.class);
            em.getTransaction().rollback();
        } finally {
            em.close();
        }
        assertThat(quantityOf(existing)).isEqualTo(10);
        assertThat(fenceOf(existing)).isZero();
        assertThat(quantityOf(fresh)).isNull();
    }

    // ----- the rest of the contract -----

    @Test
    void writesUnderAValidLeaseAreStampedWithItsToken() throws Exception {
        long id = ids.incrementAndGet();
        FencedLock lock = newLock();
        long first = Fencing.inTransaction(lock, WAIT, emf, em -> {
            em.persist(new Item(id, "sku", 10));
            return Fencing.currentLease().orElseThrow().token();
        });
        assertThat(fenceOf(id)).isEqualTo(first);
        long second = Fencing.inTransaction(lock, WAIT, emf, em -> {
            Item item = em.find(Item.class, id);
            item.take(4);
            em.flush();
            item.take(1);
            return Fencing.currentLease().orElseThrow().token();
        });
        assertThat(second).isGreaterThan(first);
        assertThat(quantityOf(id)).isEqualTo(5);
        assertThat(fenceOf(id)).isEqualTo(second);

        Fencing.inTransaction(lock, WAIT, emf, em -> {
            em.remove(em.find(Item.class, id));
            return null;
        });
        assertThat(quantityOf(id)).isNull();
    }

    /** A lease lost between the last flush and the commit fails the commit, which rolls back. */
    @Test
    void commitAfterTheLeaseExpiredIsRefusedAndRolledBack() throws Exception {
        long id = newItem(10);
        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        try (Holder holder = new Holder(lease)) {
            holder.em.find(Item.class, id).take(1);
            holder.em.flush();
            locks.expire(lease);
            assertThatThrownBy(() -> holder.em.getTransaction().commit())
                    .isInstanceOf(RollbackException.class)
                    .satisfies(failure -> assertThat(StaleFencingTokenException.findIn(failure))
                            .hasValueSatisfying(
                                    stale -> assertThat(stale.reason()).isEqualTo(Reason.LEASE_NOT_VALID)));
            assertThat(holder.em.getTransaction().isActive()).isFalse();
        }
        assertThat(quantityOf(id)).isEqualTo(10);
    }

    @Test
    void theEntitysOwnVersionStillApplies() throws Exception {
        long id = ids.incrementAndGet();
        db.execute("INSERT INTO versioned_item (id, quantity, version, fence) VALUES (?, 10, 0, 0)", id);
        FencedLock lock = newLock();
        long token = Fencing.inTransaction(lock, WAIT, emf, em -> {
            em.find(VersionedItem.class, id).take(1);
            return Fencing.currentLease().orElseThrow().token();
        });
        assertThat(db.queryLong("SELECT version FROM versioned_item WHERE id = ?", id))
                .isEqualTo(1);
        assertThat(db.queryLong("SELECT fence FROM versioned_item WHERE id = ?", id))
                .isEqualTo(token);

        // another writer bumped only the version: an ordinary optimistic-lock failure
        Lease lease = lock.acquire(WAIT, LONG_LEASE);
        try (Holder holder = new Holder(lease)) {
            VersionedItem item = holder.em.find(VersionedItem.class, id);
            db.execute("UPDATE versioned_item SET version = version + 1 WHERE id = ?", id);
            item.take(1);
            assertThatThrownBy(holder.em::flush)
                    .isInstanceOf(OptimisticLockException.class)
                    .isNotInstanceOf(StaleFencingTokenException.class);
        }

        // a newer holder wrote the row: a fencing refusal
        lease = lock.acquire(WAIT, LONG_LEASE);
        try (Holder holder = new Holder(lease)) {
            VersionedItem item = holder.em.find(VersionedItem.class, id);
            long newer = lease.token() + 1_000;
            db.execute("UPDATE versioned_item SET version = version + 1, fence = ? WHERE id = ?", newer, id);
            item.take(1);
            assertThat(refused(holder.em::flush, Reason.ROW_CHANGED).currentToken())
                    .hasValue(newer);
        }
        assertThat(db.queryLong("SELECT quantity FROM versioned_item WHERE id = ?", id))
                .isEqualTo(9);
    }

    /** A detached copy read before a newer holder wrote cannot be merged over that write; a fresh one can. */
    @Test
    void mergingACopyOfAnOlderReadIsRefused() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        Item detached = Fencing.inTransaction(lock, WAIT, emf, em -> em.find(Item.class, id));
        take(lock, id, 5);
        long fenceAfterNewerWrite = fenceOf(id);

        detached.take(1);
        StaleFencingTokenException stale =
                refused(() -> Fencing.inTransaction(lock, WAIT, emf, em -> em.merge(detached)), Reason.ROW_CHANGED);
        assertThat(stale.currentToken()).hasValue(fenceAfterNewerWrite);
        assertThat(quantityOf(id)).isEqualTo(5);

        Item fresh = Fencing.inTransaction(lock, WAIT, emf, em -> em.find(Item.class, id));
        fresh.take(1);
        Fencing.inTransaction(lock, WAIT, emf, em -> em.merge(fresh));
        assertThat(quantityOf(id)).isEqualTo(4);
    }

    @Test
    void aReadOfANewerTokenIsRefusedBeforeAnyStatement() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        Lease older = lock.acquire(WAIT, LONG_LEASE);
        LocalLockTable.SHARED.forceRelease(lock.name());
        long newer = take(lock, id, 1);
        try (Holder holder = new Holder(older)) {
            holder.em.find(Item.class, id).take(1);
            StaleFencingTokenException stale = refused(holder.em::flush, Reason.NEWER_TOKEN_READ);
            assertThat(stale.currentToken()).hasValue(newer);
        }
        assertThat(quantityOf(id)).isEqualTo(9);
    }

    @Test
    void inTransactionReleasesTheLeaseOnlyAfterTheTransactionCompleted() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        AtomicBoolean heldAtCompletion = new AtomicBoolean();
        AtomicBoolean committed = new AtomicBoolean();
        Lease[] used = new Lease[1];
        Fencing.inTransaction(lock, WAIT, emf, em -> {
            used[0] = Fencing.currentLease().orElseThrow();
            em.find(Item.class, id).take(1);
            em.unwrap(SharedSessionContractImplementor.class)
                    .getTransactionCompletionCallbacks()
                    .registerCallback((AfterCompletionCallback) (success, session) -> {
                        committed.set(success);
                        heldAtCompletion.set(used[0].isValid());
                    });
            return null;
        });
        assertThat(committed).isTrue();
        assertThat(heldAtCompletion).isTrue();
        assertThat(used[0].isValid()).isFalse();
        assertThat(Fencing.currentLease()).isEmpty();
        assertThat(quantityOf(id)).isEqualTo(9);
        assertThat(lock.tryAcquire(Duration.ZERO)).hasValueSatisfying(Lease::close);
    }

    @Test
    void inTransactionRollsBackWhenTheWorkFails() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        assertThatThrownBy(() -> Fencing.inTransaction(lock, WAIT, emf, em -> {
                    em.find(Item.class, id).take(1);
                    em.flush();
                    throw new IllegalStateException("work failed");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("work failed");
        assertThat(quantityOf(id)).isEqualTo(10);
        assertThat(lock.tryAcquire(Duration.ZERO)).hasValueSatisfying(Lease::close);
    }

    @Test
    void fencedBulkUpdateStampsTheTokenAndIsRefusedWhenItWouldSkipANewerRow() throws Exception {
        long a = newItem(10);
        long b = newItem(10);
        FencedLock lock = newLock();
        Fencing.Restriction<Item> both = (cb, root) -> root.get("id").in(a, b);
        long token = Fencing.inTransaction(lock, WAIT, emf, em -> {
            int updated = Fencing.fencedUpdate(
                    em,
                    Item.class,
                    both,
                    (cb, update, root) ->
                            update.set(root.<Integer>get("quantity"), cb.diff(root.<Integer>get("quantity"), 1)));
            assertThat(updated).isEqualTo(2);
            return Fencing.currentLease().orElseThrow().token();
        });
        assertThat(fenceOf(a)).isEqualTo(token);
        assertThat(fenceOf(b)).isEqualTo(token);

        Lease stale = lock.acquire(WAIT, LONG_LEASE);
        long newer = stale.token() + 1_000;
        db.execute("UPDATE fenced_item SET fence = ? WHERE id = ?", newer, b);
        try (Holder holder = new Holder(stale)) {
            StaleFencingTokenException refusal = refused(
                    () -> Fencing.fencedUpdate(
                            holder.em,
                            Item.class,
                            both,
                            (cb, update, root) -> update.set(root.<Integer>get("quantity"), 0)),
                    Reason.NEWER_TOKEN_READ);
            assertThat(refusal.currentToken()).hasValue(newer);
            assertThat(holder.em.getTransaction().getRollbackOnly()).isTrue();
        }
        assertThat(quantityOf(a)).isEqualTo(9);
        assertThat(quantityOf(b)).isEqualTo(9);

        int deleted = Fencing.inTransaction(
                lock, WAIT, emf, em -> Fencing.fencedDelete(em, Item.class, (cb, root) -> cb.equal(root.get("id"), a)));
        assertThat(deleted).isEqualTo(1);
        assertThat(quantityOf(a)).isNull();
    }

    @Test
    void aTableFencedByAnAlterTableMigrationIsFenced() throws Exception {
        FencedLock lock = newLock();
        long token = Fencing.inTransaction(lock, WAIT, emf, em -> {
            em.find(LegacyStock.class, 1L).take(1);
            return Fencing.currentLease().orElseThrow().token();
        });
        assertThat(db.queryLong("SELECT fence FROM legacy_stock WHERE id = 1")).isEqualTo(token);
        assertThat(db.queryLong("SELECT quantity FROM legacy_stock WHERE id = 1"))
                .isEqualTo(99);
    }

    @Test
    void statelessSessionsCannotWriteFencedEntities() throws Exception {
        long id = newItem(10);
        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        try (FencingScope scope = Fencing.bind(lease);
                StatelessSession session = emf.unwrap(SessionFactory.class).openStatelessSession()) {
            assertThat(scope.lease()).isSameAs(lease);
            session.getTransaction().begin();
            Item item = session.get(Item.class, id);
            item.take(1);
            assertThatThrownBy(() -> session.update(item)).isInstanceOf(UnsupportedOperationException.class);
            session.getTransaction().rollback();
        } finally {
            lease.close();
        }
        assertThat(quantityOf(id)).isEqualTo(10);
    }

    // ----- writes that no row condition can refuse: fenced only by the lock fence -----

    /**
     * A newer holder deletes a row with a fenced delete; then a stale holder, whose lease still
     * looks valid, inserts a row with the same id. No row condition applies to an insert and the
     * id is free again, so without the lock fence the row comes back, carrying the older token.
     * With the lock fence the stale commit is refused and the row stays deleted.
     */
    @Test
    void aStaleInsertAfterANewerHoldersDeleteResurrectsTheRowOnlyWithoutTheLockFence() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        LocalLockTable.SHARED.forceRelease(lock.name());
        long token6 = inOtherThread(() -> Fencing.inTransaction(lock, WAIT, emf, em -> {
            em.remove(em.find(Item.class, id));
            return Fencing.currentLease().orElseThrow().token();
        }));
        assertThat(quantityOf(id)).isNull();

        Outcome five;
        try (Holder holder5 = new Holder(lease5)) {
            holder5.em.persist(new Item(id, "five", 5));
            holder5.em.flush();
            assertThat(lease5.isValid()).isTrue();
            five = commitOf(holder5);
        }
        if (lockFence()) {
            assertNewerHolderWrote(five, token6);
            assertThat(quantityOf(id)).isNull();
        } else {
            assertThat(five.committed).as(five.toString()).isTrue();
            assertThat(quantityOf(id)).isEqualTo(5);
            assertThat(fenceOf(id)).isEqualTo(lease5.token()).isLessThan(token6);
        }
    }

    /** An insert whose id the database generates can clash with nothing; only the lock fence refuses a stale one. */
    @Test
    void aStaleInsertWithAGeneratedIdIsRefusedOnlyByTheLockFence() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        long token6 = takeOver(lock, id, 1);

        Outcome five;
        Long logId;
        try (Holder holder5 = new Holder(lease5)) {
            LogEntry entry = new LogEntry("five");
            holder5.em.persist(entry);
            holder5.em.flush();
            logId = entry.id();
            assertThat(logId).isNotNull();
            five = commitOf(holder5);
        }
        Long logged = db.queryLong("SELECT fence FROM fenced_log WHERE id = ?", logId);
        if (lockFence()) {
            assertNewerHolderWrote(five, token6);
            assertThat(logged).isNull();
        } else {
            assertThat(five.committed).as(five.toString()).isTrue();
            assertThat(logged).isEqualTo(lease5.token());
        }
    }

    /**
     * A stale holder updates a row that no newer holder has written. The row's own condition holds
     * (it still carries what was read); only the lock fence knows that a newer holder has
     * committed other writes under the lock since.
     */
    @Test
    void aStaleUpdateOfARowNoNewerHolderWroteIsRefusedOnlyByTheLockFence() throws Exception {
        long a = newItem(10);
        long b = newItem(10);
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        long token6;
        Outcome five;
        try (Holder holder5 = new Holder(lease5)) {
            Item b5 = holder5.em.find(Item.class, b);
            token6 = takeOver(lock, a, 1);
            b5.take(1);
            holder5.em.flush();
            five = commitOf(holder5);
        }
        assertThat(quantityOf(a)).isEqualTo(9);
        if (lockFence()) {
            assertNewerHolderWrote(five, token6);
            assertThat(quantityOf(b)).isEqualTo(10);
            assertThat(fenceOf(b)).isZero();
        } else {
            assertThat(five.committed).as(five.toString()).isTrue();
            assertThat(quantityOf(b)).isEqualTo(9);
            assertThat(fenceOf(b)).isEqualTo(lease5.token());
        }
    }

    // ----- concurrency failures of the database -----

    /**
     * Under REPEATABLE READ, PostgreSQL and H2 refuse an UPDATE or DELETE of a row changed since the
     * transaction's snapshot with a serialization failure (SQLState 40001) instead of matching no
     * row; it is reported as the same refusal. (MariaDB's UPDATE and DELETE read the latest
     * committed row and match no row.)
     */
    @ParameterizedTest(name = "delete: {0}")
    @ValueSource(booleans = {false, true})
    void aStaleWriteUnderRepeatableReadOfARowANewerHolderChangedIsRefused(boolean delete) throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        long token6;
        try (Holder holder5 = new Holder(lease5, Connection.TRANSACTION_REPEATABLE_READ)) {
            Item item5 = holder5.em.find(Item.class, id);
            token6 = takeOver(lock, id, 3);
            if (delete) {
                holder5.em.remove(item5);
            } else {
                item5.take(1);
            }
            StaleFencingTokenException stale = refused(holder5.em::flush, Reason.ROW_CHANGED);
            assertThat(stale.currentToken()).hasValue(token6);
            assertThat(stale.id()).contains(id);
        }
        assertThat(quantityOf(id)).isEqualTo(7);
        assertThat(fenceOf(id)).isEqualTo(token6);
    }

    /**
     * Both holders read that an id is free, in SERIALIZABLE transactions; the newer one inserts it
     * and commits, then the stale one inserts it too. PostgreSQL reports that clash as a
     * serialization failure (SQLState 40001) rather than a duplicate key; it is reported as the
     * same refusal. (MariaDB runs this under REPEATABLE READ: its SERIALIZABLE reads lock the gap,
     * so the newer insert would wait for the stale transaction.)
     */
    @Test
    void aStaleInsertOfAnIdBothHoldersReadAsFreeUnderSerializableIsRefused() throws Exception {
        long id = ids.incrementAndGet();
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        LocalLockTable.SHARED.forceRelease(lock.name());
        Lease lease6 = lock.acquire(WAIT, LONG_LEASE);
        int isolation = kind() == TestDatabase.Kind.MARIADB
                ? Connection.TRANSACTION_REPEATABLE_READ
                : Connection.TRANSACTION_SERIALIZABLE;
        try (Holder holder5 = new Holder(lease5, isolation)) {
            assertThat(holder5.em.find(Item.class, id)).isNull();
            inOtherThread(() -> {
                try (Holder holder6 = new Holder(lease6, isolation)) {
                    assertThat(holder6.em.find(Item.class, id)).isNull();
                    holder6.em.persist(new Item(id, "six", 6));
                    holder6.em.getTransaction().commit();
                }
                return null;
            });
            holder5.em.persist(new Item(id, "five", 5));
            StaleFencingTokenException stale = refused(holder5.em::flush, Reason.DUPLICATE_ROW);
            assertThat(stale.currentToken()).hasValue(lease6.token());
        }
        assertThat(quantityOf(id)).isEqualTo(6);
        assertThat(fenceOf(id)).isEqualTo(lease6.token());
    }

    /**
     * Under REPEATABLE READ, a stale UPDATE waits for the newer holder's uncommitted write of the
     * same row; when that commits, PostgreSQL and H2 fail it with a serialization failure: refused.
     */
    @Test
    void aStaleUpdateUnderRepeatableReadThatWaitedForTheNewerWriteIsRefused() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        LocalLockTable.SHARED.forceRelease(lock.name());
        Lease lease6 = lock.acquire(WAIT, LONG_LEASE);
        try (Holder holder6 = new Holder(lease6)) {
            holder6.em.find(Item.class, id).take(3);
            holder6.em.flush();

            CountDownLatch flushing5 = new CountDownLatch(1);
            Future<Outcome> holder5 = executor.submit(() -> {
                try (Holder h5 = new Holder(lease5, Connection.TRANSACTION_REPEATABLE_READ)) {
                    h5.em.find(Item.class, id).take(1);
                    flushing5.countDown();
                    return outcomeOf(() -> {
                        h5.em.flush();
                        return null;
                    });
                }
            });
            await(flushing5, "holder 5 flushing its update");
            holder6.em.getTransaction().commit();

            Outcome five = holder5.get(30, SECONDS);
            assertThat(five.refusal).as(five.toString()).isEqualTo(Reason.ROW_CHANGED);
            assertThat(five.current).isEqualTo(lease6.token());
        }
        assertThat(quantityOf(id)).isEqualTo(7);
        assertThat(fenceOf(id)).isEqualTo(lease6.token());
    }

    /**
     * A stale UPDATE (REPEATABLE READ, so that it waits for the row's lock on every database) times
     * out on a lock another transaction holds. If a newer holder's write of the row committed
     * before, the timeout is reported as the refusal it stands for; if not, the database's lock
     * timeout is passed on: nothing newer has committed, and the caller may retry.
     */
    @ParameterizedTest(name = "newer write committed: {0}")
    @ValueSource(booleans = {true, false})
    void aStaleUpdateThatTimesOutOnARowLockIsRefusedOnlyWhenTheFenceMoved(boolean newerWrite) throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        Lease lease5 = lock.acquire(WAIT, LONG_LEASE);
        Long token6 = null;
        Throwable thrown;
        try (Holder holder5 = new Holder(lease5, Connection.TRANSACTION_REPEATABLE_READ);
                Connection blocker = db.connection()) {
            Item item5 = holder5.em.find(Item.class, id);
            if (newerWrite) {
                token6 = takeOver(lock, id, 3);
            }
            blocker.setAutoCommit(false);
            try (PreparedStatement select =
                    blocker.prepareStatement("SELECT id FROM fenced_item WHERE id = ? FOR UPDATE")) {
                select.setLong(1, id);
                select.executeQuery().close();
            }
            item5.take(1);
            String restore = shortenLockTimeout(holder5.em);
            try {
                thrown = catchThrowable(holder5.em::flush);
            } finally {
                if (restore != null) {
                    holder5.em.unwrap(Session.class).doWork(c -> {
                        try (Statement statement = c.createStatement()) {
                            statement.execute(restore);
                        }
                    });
                }
                blocker.rollback();
            }
        }
        assertThat(thrown).isNotNull();
        if (newerWrite) {
            assertThat(thrown).isInstanceOf(StaleFencingTokenException.class);
            StaleFencingTokenException stale = (StaleFencingTokenException) thrown;
            assertThat(stale.reason()).as(stale.getMessage()).isEqualTo(Reason.ROW_CHANGED);
            assertThat(stale.currentToken()).hasValue(token6);
            assertThat(quantityOf(id)).isEqualTo(7);
        } else {
            assertThat(StaleFencingTokenException.findIn(thrown)).isEmpty();
            assertThat(causes(thrown)).anyMatch(org.hibernate.PessimisticLockException.class::isInstance);
            assertThat(quantityOf(id)).isEqualTo(10);
        }
    }

    // ----- helpers -----

    /** An open transaction of one lease holder on the current thread, with the lease bound. */
    final class Holder implements AutoCloseable {
        final Lease lease;
        final EntityManager em;
        final FencingScope scope;

        Holder(Lease lease) {
            this.lease = lease;
            this.em = emf.createEntityManager();
            this.scope = Fencing.bind(lease);
            em.getTransaction().begin();
        }

        /** With the transaction at {@code isolation} (a {@link Connection} constant). */
        Holder(Lease lease, int isolation) {
            this(lease);
            em.unwrap(Session.class).doWork(connection -> {
                connection.setTransactionIsolation(isolation);
                assertThat(connection.getTransactionIsolation()).isEqualTo(isolation);
            });
        }

        @Override
        public void close() {
            try {
                if (em.getTransaction().isActive()) {
                    em.getTransaction().rollback();
                }
            } finally {
                scope.close();
                em.close();
                lease.close();
            }
        }
    }

    /** How one holder's attempt ended. */
    record Outcome(boolean committed, Reason refusal, Long current, Throwable failure) {
        @Override
        public String toString() {
            return committed ? "committed" : refusal != null ? "refused " + refusal : "failed " + failure;
        }
    }

    static Outcome outcomeOf(Callable<?> attempt) {
        try {
            attempt.call();
            return new Outcome(true, null, null, null);
        } catch (Exception e) {
            return StaleFencingTokenException.findIn(e)
                    .map(stale -> new Outcome(
                            false,
                            stale.reason(),
                            stale.currentToken().isPresent()
                                    ? stale.currentToken().getAsLong()
                                    : null,
                            e))
                    .orElseGet(() -> new Outcome(false, null, null, e));
        }
    }

    /**
     * Takes the lock from its holder, whose lease goes on looking valid, and has a newer holder
     * take {@code amount} from item {@code id} and commit; returns the newer holder's token.
     */
    long takeOver(FencedLock lock, long id, int amount) throws Exception {
        LocalLockTable.SHARED.forceRelease(lock.name());
        return inOtherThread(() -> take(lock, id, amount));
    }

    /** Asserts that the lock fence refused the commit, holding {@code newer}. */
    static void assertNewerHolderWrote(Outcome outcome, long newer) {
        assertThat(outcome.refusal).as(outcome.toString()).isEqualTo(Reason.NEWER_HOLDER_WROTE);
        assertThat(outcome.current).isEqualTo(newer);
    }

    /** Commits the holder's transaction. */
    static Outcome commitOf(Holder holder) {
        return outcomeOf(() -> {
            holder.em.getTransaction().commit();
            return null;
        });
    }

    static List<Throwable> causes(Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = failure; t != null && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }

    /**
     * Makes the transaction of {@code em} give up waiting for a row lock after a short time.
     *
     * @return the statement that restores the connection's setting before it goes back to the
     *     pool, null if the setting ends with the transaction
     */
    String shortenLockTimeout(EntityManager em) {
        String[] statements = switch (kind()) {
            case H2 -> new String[] {"SET LOCK_TIMEOUT 300", "SET LOCK_TIMEOUT " + TestDatabase.H2_LOCK_TIMEOUT_MILLIS};
            case POSTGRESQL -> new String[] {"SET LOCAL lock_timeout = '300ms'", null};
            case MARIADB ->
                new String[] {
                    "SET SESSION innodb_lock_wait_timeout = 1", "SET SESSION innodb_lock_wait_timeout = DEFAULT"
                };
        };
        em.unwrap(Session.class).doWork(c -> {
            try (Statement statement = c.createStatement()) {
                statement.execute(statements[0]);
            }
        });
        return statements[1];
    }

    /** Asserts that {@code write} is refused for {@code reason} and returns the refusal. */
    static StaleFencingTokenException refused(ThrowingCallable write, Reason reason) {
        Throwable thrown = catchThrowable(write);
        assertThat(thrown).isInstanceOf(StaleFencingTokenException.class);
        StaleFencingTokenException stale = (StaleFencingTokenException) thrown;
        assertThat(stale.reason()).as(stale.getMessage()).isEqualTo(reason);
        return stale;
    }

    /** Takes {@code amount} from item {@code id} in a transaction of its own under {@code lock}; returns its token. */
    long take(FencedLock lock, long id, int amount) throws InterruptedException {
        return Fencing.inTransaction(lock, WAIT, emf, em -> {
            em.find(Item.class, id).take(amount);
            return Fencing.currentLease().orElseThrow().token();
        });
    }

    <T> T inOtherThread(Callable<T> work) throws Exception {
        return executor.submit(work).get(30, SECONDS);
    }

    FencedLock newLock() {
        return locks.lock("fencing-jpa/" + kind() + "/" + UUID.randomUUID());
    }

    long newItem(int quantity) {
        long id = ids.incrementAndGet();
        db.execute("INSERT INTO fenced_item (id, sku, quantity, fence) VALUES (?, ?, ?, 0)", id, "sku-" + id, quantity);
        return id;
    }

    Long quantityOf(long id) {
        return db.queryLong("SELECT quantity FROM fenced_item WHERE id = ?", id);
    }

    Long fenceOf(long id) {
        return db.queryLong("SELECT fence FROM fenced_item WHERE id = ?", id);
    }

    static void await(CountDownLatch latch, String what) throws InterruptedException {
        assertThat(latch.await(30, SECONDS)).as(what).isTrue();
    }
}
