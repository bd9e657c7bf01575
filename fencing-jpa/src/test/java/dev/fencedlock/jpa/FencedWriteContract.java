package dev.fencedlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FenceRefusedException.Reason;
import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.local.LocalLockFaults;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.criteria.CriteriaBuilder;
import jakarta.persistence.criteria.CriteriaDelete;
import jakarta.persistence.criteria.CriteriaUpdate;
import jakarta.persistence.criteria.Root;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every write path of a fenced entity, with and without a lease bound, asserting that it is fenced
 * or refused, and the refusals of the fence guard, on a real database with real leases of the
 * in-process {@code local} backend. A lock is broken with {@link LocalLockFaults#loseLease}, so
 * that two holders are valid at once; a lease expires when the test moves the leases' clock
 * ({@link TestLocks#expire}), never by waiting.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FencedWriteContract {
    static final Duration WAIT = Duration.ofSeconds(10);
    static final Duration LONG_LEASE = Duration.ofMinutes(2);

    final AtomicLong ids = new AtomicLong(1000);
    FencedUnit unit;
    TestDatabase db;
    EntityManagerFactory emf;
    TestLocks locks;

    protected abstract TestDatabase.Kind kind();

    @BeforeAll
    void open() {
        unit = FencedUnit.open(kind());
        db = unit.db;
        emf = unit.emf;
        locks = new TestLocks();
    }

    @AfterAll
    void close() {
        locks.close();
        unit.close();
    }

    // ----- the fence guard -----

    /**
     * Refused at {@code begin()} where the guard is a statement of its own; on PostgreSQL, where it
     * travels with the transaction's first statement, at that statement, the transaction then
     * marked for rollback.
     */
    @Test
    void aTransactionWithAnOlderTokenIsRefusedAtBeginOrItsFirstStatementAndNothingStaysOpen() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        try (Lease older = lock.acquire(WAIT, LONG_LEASE)) {
            LocalLockFaults.loseLease(lock.name());
            long newer = Fencing.inTransaction(lock, WAIT, emf, em -> {
                em.find(Item.class, id).take(1);
                return Fencing.currentLease().orElseThrow().token();
            });
            assertThat(older.isValid()).as("both holders valid").isTrue();

            EntityManager em = emf.createEntityManager();
            try (FencingScope scope = Fencing.bind(older)) {
                StaleFencingTokenException refused;
                if (kind() == TestDatabase.Kind.POSTGRESQL) {
                    em.getTransaction().begin();
                    refused = stale(() -> em.find(Item.class, id), Reason.NEWER_TOKEN_REGISTERED);
                    assertThat(em.getTransaction().getRollbackOnly()).isTrue();
                    em.getTransaction().rollback();
                } else {
                    refused = stale(() -> em.getTransaction().begin(), Reason.NEWER_TOKEN_REGISTERED);
                }
                assertThat(refused.lockName()).isEqualTo(lock.name());
                assertThat(refused.token()).isEqualTo(older.token());
                assertThat(refused.newerToken()).hasValue(newer);
                assertThat(refused.getCause()).isInstanceOf(FenceRefusedException.class);
                assertThat(em.getTransaction().isActive()).isFalse();
            } finally {
                em.close();
            }
            assertThat(fenceRow(lock)).isEqualTo(newer);
            assertThat(quantityOf(id)).isEqualTo(9);
        }
    }

    /** An insert has no row to compare with: the fence row refuses the older holder's transaction. */
    @Test
    void insertsAreFencedWithoutOptingIn() throws Exception {
        FencedLock lock = newLock();
        long id = ids.incrementAndGet();
        try (Lease older = lock.acquire(WAIT, LONG_LEASE)) {
            LocalLockFaults.loseLease(lock.name());
            Fencing.inTransaction(lock, WAIT, emf, em -> em.find(Item.class, newItem(1)));

            Throwable failure = catchThrowable(() -> inLeaseDo(older, em -> em.persist(new Item(id, "stale", 5))));
            assertThat(StaleFencingTokenException.findIn(failure)).isPresent();
            assertThat(db.queryLong("SELECT COUNT(*) FROM fenced_item WHERE id = ?", id))
                    .isZero();
        }
    }

    @Test
    void theLeaseIsCheckedAtCommitAndTheTransactionRolledBack() throws Exception {
        long id = newItem(10);
        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        Throwable failure = catchThrowable(() -> inLeaseDo(lease, em -> {
            em.find(Item.class, id).take(1);
            em.flush();
            locks.expire(lease);
        }));
        assertThat(StaleFencingTokenException.findIn(failure))
                .get()
                .extracting(StaleFencingTokenException::reason)
                .isEqualTo(Reason.LEASE_NOT_VALID);
        assertThat(quantityOf(id)).isEqualTo(10);
    }

    @Test
    void aLeaseThatIsNoLongerValidIsRefusedAtBegin() throws Exception {
        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        locks.expire(lease);
        EntityManager em = emf.createEntityManager();
        try (FencingScope scope = Fencing.bind(lease)) {
            stale(() -> em.getTransaction().begin(), Reason.LEASE_NOT_VALID);
            assertThat(em.getTransaction().isActive()).isFalse();
        } finally {
            em.close();
        }
    }

    @Test
    void aLeaseBoundAfterTheTransactionBeganIsRefusedNamingTheFix() throws Exception {
        long id = newItem(10);
        EntityManager em = emf.createEntityManager();
        try (Lease lease = newLock().acquire(WAIT, LONG_LEASE)) {
            em.getTransaction().begin();
            try (FencingScope scope = Fencing.bind(lease)) {
                em.find(Item.class, id).take(1);
                assertThat(rootMessages(catchThrowable(em::flush)))
                        .contains("began with no lease bound")
                        .contains("bind the lease (Fencing.bind) before beginning the transaction");
            }
            em.getTransaction().rollback();
        } finally {
            em.close();
        }
        assertThat(quantityOf(id)).isEqualTo(10);
    }

    /**
     * A read before {@code begin()} on a held connection with autocommit off
     * leaves a transaction open (REPEATABLE READ: with its snapshot); the fenced transaction must
     * not join it, or it reads data older than the previous holder's commit.
     */
    @Test
    void aReadBeforeBeginOnAHeldConnectionWithAutocommitOffIsNotJoinedByTheGuard() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        EntityManagerFactory held = unit.heldConnectionsWithoutAutocommit("TRANSACTION_REPEATABLE_READ");
        EntityManager em = held.createEntityManager();
        try {
            assertThat(em.find(Item.class, id).quantity()).isEqualTo(10);
            em.clear();
            Fencing.inTransaction(lock, WAIT, emf, other -> {
                other.find(Item.class, id).take(4);
                return null;
            });
            try (Lease lease = lock.acquire(WAIT, LONG_LEASE);
                    FencingScope scope = Fencing.bind(lease)) {
                em.getTransaction().begin();
                Item item = em.find(Item.class, id);
                assertThat(item.quantity())
                        .as("read after the guard, which came after the previous holder's commit")
                        .isEqualTo(6);
                item.take(1);
                em.getTransaction().commit();
            }
        } finally {
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
            em.close();
        }
        assertThat(quantityOf(id)).isEqualTo(5);
    }

    /**
     * What a held connection with autocommit off ran
     * before a fenced {@code begin()} (here an update Hibernate was allowed to run outside a
     * transaction) is committed before the guard, as autocommit would have: it is not part of the
     * fenced transaction, so that transaction's rollback does not take it back.
     */
    @Test
    void aWriteBeforeBeginOnAHeldConnectionIsCommittedBeforeTheGuardNotJoined() throws Exception {
        long labelId = ids.incrementAndGet();
        db.execute("INSERT INTO label (id, name) VALUES (?, 'before')", labelId);
        EntityManagerFactory held = unit.heldConnectionsWithoutAutocommit(
                "TRANSACTION_REPEATABLE_READ", java.util.Map.of("hibernate.allow_update_outside_transaction", true));
        EntityManager em = held.createEntityManager();
        try (Lease lease = newLock().acquire(WAIT, LONG_LEASE)) {
            em.createNativeQuery("update label set name = 'outside' where id = " + labelId)
                    .executeUpdate();
            try (FencingScope scope = Fencing.bind(lease)) {
                em.getTransaction().begin();
                em.getTransaction().rollback();
            }
        } finally {
            em.close();
        }
        assertThat(db.queryLong("SELECT COUNT(*) FROM label WHERE id = ? AND name = 'outside'", labelId))
                .as("the write made before begin()")
                .isEqualTo(1);
    }

    /**
     * A transaction begun without a lease must not write a fenced entity because
     * another entity manager on the thread began a fenced transaction after it.
     */
    @Test
    void aTransactionBegunWithoutALeaseCannotWriteUnderAnotherEntityManagersFencedOne() throws Exception {
        long id = newItem(10);
        long newId = ids.incrementAndGet();
        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        EntityManager unfenced = emf.createEntityManager();
        EntityManager fenced = emf.createEntityManager();
        try {
            unfenced.getTransaction().begin();
            Item item = unfenced.find(Item.class, id);
            try (FencingScope scope = Fencing.bind(lease)) {
                fenced.getTransaction().begin();
                item.take(1);
                unfenced.persist(new Item(newId, "unguarded", 1));
                assertThat(rootMessages(catchThrowable(unfenced::flush)))
                        .as("a write in the transaction begun without a lease")
                        .contains("began with no lease bound");
                assertThat(rootMessages(catchThrowable(() -> unfenced.createNativeQuery(
                                        "update fenced_item set quantity = 0, version = version + 1 where id = " + id)
                                .executeUpdate())))
                        .contains("began with no lease bound");
                assertThat(rootMessages(catchThrowable(() -> Fencing.fencedUpdate(
                                unfenced,
                                Item.class,
                                (cb, root) -> cb.equal(root.get("id"), id),
                                (cb, update, root) -> update.set(root.<Integer>get("quantity"), 0)))))
                        .contains("began with no lease bound");
                fenced.find(Item.class, id).take(2);
                fenced.getTransaction().commit();
            }
            if (unfenced.getTransaction().isActive()) {
                unfenced.getTransaction().rollback();
            }
        } finally {
            unfenced.close();
            fenced.close();
            lease.close();
        }
        assertThat(quantityOf(id)).as("only the fenced write").isEqualTo(8);
        assertThat(db.queryLong("SELECT COUNT(*) FROM fenced_item WHERE id = ?", newId))
                .isZero();
    }

    @Test
    void writesUnderAValidLeaseAreStampedAndVersioned() throws Exception {
        long id = ids.incrementAndGet();
        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        inLeaseDo(lease, em -> em.persist(new Item(id, "sku", 3)));
        assertThat(fenceOf(id)).isEqualTo(lease.token());
        inLeaseDo(lease, em -> em.find(Item.class, id).take(1));
        assertThat(quantityOf(id)).isEqualTo(2);
        assertThat(db.queryLong("SELECT version FROM fenced_item WHERE id = ?", id))
                .isEqualTo(1);
        Long logId = inLease(lease, em -> {
            LogEntry entry = new LogEntry("generated id");
            em.persist(entry);
            em.flush();
            return entry.id();
        });
        assertThat(db.queryLong("SELECT fence FROM fenced_log WHERE id = ?", logId))
                .isEqualTo(lease.token());
        inLeaseDo(lease, em -> em.remove(em.find(Item.class, id)));
        assertThat(db.queryLong("SELECT COUNT(*) FROM fenced_item WHERE id = ?", id))
                .isZero();
        lease.close();
    }

    // ----- entity writes without a lease -----

    @Test
    void entityWritesWithoutALeaseAreRefused() {
        long id = newItem(10);
        assertNoLease(em -> em.persist(new Item(ids.incrementAndGet(), "sku", 1)));
        assertNoLease(em -> em.find(Item.class, id).take(1));
        assertNoLease(em -> em.remove(em.find(Item.class, id)));
        assertThat(quantityOf(id)).isEqualTo(10);
    }

    @Test
    void aFencedChildThroughAnUnfencedParentsCascadeIsFenced() throws Exception {
        long itemId = ids.incrementAndGet();
        long shelfId = ids.incrementAndGet();
        assertNoLease(em -> em.persist(new Shelf(shelfId, new Item(itemId, "cascaded", 1))));
        assertThat(db.queryLong("SELECT COUNT(*) FROM fenced_item WHERE id = ?", itemId))
                .isZero();

        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        inLeaseDo(lease, em -> em.persist(new Shelf(shelfId, new Item(itemId, "cascaded", 1))));
        assertThat(fenceOf(itemId)).isEqualTo(lease.token());
        assertNoLease(em -> em.remove(em.find(Shelf.class, shelfId)));
        assertThat(db.queryLong("SELECT COUNT(*) FROM fenced_item WHERE id = ?", itemId))
                .isEqualTo(1);
        lease.close();
    }

    @Test
    void statelessSessionWritesAreRefused() throws Exception {
        long id = ids.incrementAndGet();
        try (Lease lease = newLock().acquire(WAIT, LONG_LEASE);
                FencingScope scope = Fencing.bind(lease)) {
            StatelessSession session = emf.unwrap(SessionFactory.class).openStatelessSession();
            try {
                session.beginTransaction();
                assertThat(rootMessages(catchThrowable(() -> session.insert(new Item(id, "stateless", 1)))))
                        .contains("cannot be inserted through a StatelessSession");
                session.getTransaction().rollback();
                session.beginTransaction();
                Item existing = session.get(Item.class, newItem(1));
                assertThat(rootMessages(catchThrowable(() -> session.update(existing))))
                        .contains("cannot be updated through a StatelessSession");
                assertThat(rootMessages(catchThrowable(() -> session.delete(existing))))
                        .contains("cannot be deleted through a StatelessSession");
                session.getTransaction().rollback();
            } finally {
                session.close();
            }
        }
        assertThat(db.queryLong("SELECT COUNT(*) FROM fenced_item WHERE id = ?", id))
                .isZero();
    }

    // ----- the version: two writes under one token, stale detached copies -----

    @Test
    void aStaleDetachedCopyMergedOverANewerWriteIsRefused() throws Exception {
        long id = newItem(10);
        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        Item detached = inLease(lease, em -> em.find(Item.class, id));
        inLeaseDo(lease, em -> em.find(Item.class, id).take(1));

        detached.take(5);
        Throwable failure = catchThrowable(() -> inLease(lease, em -> em.merge(detached)));
        assertThat(failure).isInstanceOf(OptimisticLockException.class);
        assertThat(quantityOf(id)).isEqualTo(9);
        lease.close();
    }

    @Test
    void aDetachedCopyReadBeforeAFencedBulkUpdateIsRefused() throws Exception {
        long id = newItem(10);
        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        Item detached = inLease(lease, em -> em.find(Item.class, id));
        int updated = inLease(
                lease,
                em -> Fencing.fencedUpdate(
                        em,
                        Item.class,
                        (cb, root) -> cb.equal(root.get("id"), id),
                        (cb, update, root) -> update.set(root.<Integer>get("quantity"), 0)));
        assertThat(updated).isEqualTo(1);
        assertThat(fenceOf(id)).isEqualTo(lease.token());

        detached.take(1);
        assertThat(catchThrowable(() -> inLease(lease, em -> em.merge(detached))))
                .isInstanceOf(OptimisticLockException.class);
        assertThat(quantityOf(id)).isZero();
        lease.close();
    }

    // ----- bulk JPQL / Criteria and native SQL -----

    @Test
    void bulkJpqlAndCriteriaWithoutALeaseAreRefused() {
        long id = newItem(10);
        assertNoLease(em -> em.createQuery("update Item i set i.quantity = 0 where i.id = :id")
                .setParameter("id", id)
                .executeUpdate());
        assertNoLease(em -> em.createQuery("update versioned Item i set i.quantity = 0 where i.id = :id")
                .setParameter("id", id)
                .executeUpdate());
        assertNoLease(em -> em.createQuery("delete from Item i where i.id = :id")
                .setParameter("id", id)
                .executeUpdate());
        assertNoLease(em -> {
            CriteriaBuilder cb = em.getCriteriaBuilder();
            CriteriaUpdate<Item> update = cb.createCriteriaUpdate(Item.class);
            Root<Item> root = update.from(Item.class);
            update.set(root.<Integer>get("quantity"), 0).where(cb.equal(root.get("id"), id));
            em.createQuery(update).executeUpdate();
        });
        assertNoLease(em -> {
            CriteriaBuilder cb = em.getCriteriaBuilder();
            CriteriaDelete<Item> delete = cb.createCriteriaDelete(Item.class);
            Root<Item> root = delete.from(Item.class);
            em.createQuery(delete.where(cb.equal(root.get("id"), id))).executeUpdate();
        });
        assertThat(quantityOf(id)).isEqualTo(10);
    }

    @Test
    void bulkJpqlUnderALeaseMustChangeTheVersion() throws Exception {
        long id = newItem(10);
        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        Throwable unversioned = catchThrowable(() -> inLease(
                lease,
                em -> em.createQuery("update Item i set i.quantity = 0 where i.id = :id")
                        .setParameter("id", id)
                        .executeUpdate()));
        assertThat(rootMessages(unversioned)).contains("must change its version column");
        assertThat(quantityOf(id)).isEqualTo(10);

        inLease(
                lease,
                em -> em.createQuery("update versioned Item i set i.quantity = 0 where i.id = :id")
                        .setParameter("id", id)
                        .executeUpdate());
        assertThat(quantityOf(id)).isZero();
        assertThat(db.queryLong("SELECT version FROM fenced_item WHERE id = ?", id))
                .isEqualTo(1);
        inLease(
                lease,
                em -> em.createQuery("delete from Item i where i.id = :id")
                        .setParameter("id", id)
                        .executeUpdate());
        assertThat(db.queryLong("SELECT COUNT(*) FROM fenced_item WHERE id = ?", id))
                .isZero();
        lease.close();
    }

    /**
     * Native SQL whose fenced table is not the first word after the
     * keyword (comments, modifiers, multi-table forms, WITH, EXPLAIN) is refused without a lease,
     * and an UPDATE of the fenced table that does not change its version is refused with one.
     */
    @Test
    void nativeSqlTheOldInspectorCouldNotReadIsRefused() throws Exception {
        long id = newItem(10);
        java.util.List<String> writes = new java.util.ArrayList<>(java.util.List.of(
                "update /* c */ fenced_item set quantity = 0 where id = " + id,
                "delete /* c */ from fenced_item where id = " + id));
        switch (kind()) {
            case MARIADB ->
                writes.addAll(java.util.List.of(
                        "update ignore fenced_item set quantity = 0 where id = " + id,
                        "update low_priority fenced_item set quantity = 0 where id = " + id,
                        "delete low_priority quick from fenced_item where id = " + id,
                        "replace low_priority into fenced_item (id, sku, quantity, version, fence) values (" + id
                                + ", 'r', 0, 0, 0)",
                        "update fenced_item a join fenced_item f on f.id = a.id set f.quantity = 0 where f.id = " + id,
                        "delete f from fenced_item a join fenced_item f on f.id = a.id where f.id = " + id));
            case POSTGRESQL ->
                writes.addAll(java.util.List.of(
                        "delete from only fenced_item where id = " + id,
                        "explain analyze delete from fenced_item where id = " + id,
                        "with x as (select 1) update fenced_item set quantity = 0 where id = " + id));
            case H2 -> writes.add("merge into fenced_item key (id) values (" + id + ", 'm', 0, 0, 0)");
        }
        for (String sql : writes) {
            assertNoLease(em -> em.createNativeQuery(sql).executeUpdate());
        }
        assertThat(quantityOf(id)).as("nothing unfenced landed").isEqualTo(10);

        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        String unversioned = kind() == TestDatabase.Kind.MARIADB
                ? "update ignore fenced_item set quantity = 0 where id = " + id
                : "with x as (select 1) update fenced_item set quantity = 0 where id = " + id;
        assertThat(rootMessages(catchThrowable(() ->
                        inLease(lease, em -> em.createNativeQuery(unversioned).executeUpdate()))))
                .as(unversioned)
                .contains("must change its version column version");
        assertThat(quantityOf(id)).isEqualTo(10);
        lease.close();
    }

    @Test
    void nativeSqlOnAFencedTableIsFencedOrRefused() throws Exception {
        long id = newItem(10);
        assertNoLease(em -> em.createNativeQuery("UPDATE fenced_item SET quantity = 0 WHERE id = ?")
                .setParameter(1, id)
                .executeUpdate());
        assertNoLease(em -> em.createNativeQuery("/* a comment */ delete from FENCED_ITEM where id = ?")
                .setParameter(1, id)
                .executeUpdate());
        assertNoLease(em -> em.createNativeQuery("INSERT INTO fenced_item (id, sku, quantity) VALUES (?, 'n', 1)")
                .setParameter(1, ids.incrementAndGet())
                .executeUpdate());
        assertNoLease(em -> em.createNativeQuery("INSERT INTO item_tag (item_id, tag) VALUES (?, 'n')")
                .setParameter(1, id)
                .executeUpdate());
        assertThat(quantityOf(id)).isEqualTo(10);

        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        assertThat(rootMessages(catchThrowable(() -> inLease(
                        lease,
                        em -> em.createNativeQuery("UPDATE fenced_item SET quantity = 0 WHERE id = ?")
                                .setParameter(1, id)
                                .executeUpdate()))))
                .contains("must change its version column version");
        inLease(
                lease,
                em -> em.createNativeQuery(
                                "UPDATE fenced_item SET quantity = 0, version = version + 1, fence = ? WHERE id = ?")
                        .setParameter(1, lease.token())
                        .setParameter(2, id)
                        .executeUpdate());
        assertThat(quantityOf(id)).isZero();
        lease.close();
    }

    // ----- collection tables -----

    @Test
    void collectionTablesWithoutALeaseAreRefused() {
        long id = newItem(10);
        long labelId = ids.incrementAndGet();
        long noteId = ids.incrementAndGet();
        db.execute("INSERT INTO label (id, name) VALUES (?, 'l')", labelId);
        db.execute("INSERT INTO note (id, text) VALUES (?, 'n')", noteId);
        assertNoLease(em -> em.find(Item.class, id).tags().add("unfenced"));
        assertNoLease(em -> em.find(Item.class, id).labels().add(em.find(Label.class, labelId)));
        assertNoLease(em -> em.find(Item.class, id).notes().add(em.find(Note.class, noteId)));
        assertThat(db.queryLong("SELECT COUNT(*) FROM item_tag WHERE item_id = ?", id))
                .isZero();
        assertThat(db.queryLong("SELECT COUNT(*) FROM item_label WHERE item_id = ?", id))
                .isZero();
        assertThat(db.queryLong("SELECT COUNT(*) FROM item_note WHERE item_id = ?", id))
                .isZero();
    }

    @Test
    void collectionTablesUnderALeaseAreWritten() throws Exception {
        long id = newItem(10);
        long labelId = ids.incrementAndGet();
        db.execute("INSERT INTO label (id, name) VALUES (?, 'l')", labelId);
        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        inLeaseDo(lease, em -> {
            Item item = em.find(Item.class, id);
            item.tags().add("fenced");
            item.labels().add(em.find(Label.class, labelId));
        });
        assertThat(db.queryLong("SELECT COUNT(*) FROM item_tag WHERE item_id = ?", id))
                .isEqualTo(1);
        assertThat(db.queryLong("SELECT COUNT(*) FROM item_label WHERE item_id = ?", id))
                .isEqualTo(1);
        lease.close();
    }

    /** An element collection inside an embedded value is fenced like one of the entity's own. */
    @Test
    void anElementCollectionInsideAnEmbeddedValueIsFencedOrRefused() throws Exception {
        long id = ids.incrementAndGet();
        db.execute("INSERT INTO crate (id, label) VALUES (?, 'c')", id);
        assertNoLease(em -> em.find(Crate.class, id).contents().parts().add("unfenced"));
        assertThat(db.queryLong("SELECT COUNT(*) FROM crate_part WHERE crate_id = ?", id))
                .as("nothing written without a lease")
                .isZero();

        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        inLeaseDo(lease, em -> em.find(Crate.class, id).contents().parts().add("fenced"));
        assertThat(db.queryLong("SELECT COUNT(*) FROM crate_part WHERE crate_id = ?", id))
                .isEqualTo(1);
        lease.close();
    }

    /**
     * A fenced entity's one-to-many by join column writes the child's table,
     * which stays the child's: plain writes of the unfenced child need no lease.
     */
    @Test
    void theChildTableOfAOneToManyByJoinColumnIsNotFenced() throws Exception {
        long crateId = ids.incrementAndGet();
        long penId = ids.incrementAndGet();
        db.execute("INSERT INTO crate (id, label) VALUES (?, 'c')", crateId);
        EntityManager em = emf.createEntityManager();
        try {
            em.getTransaction().begin();
            em.persist(new Pen(penId, "plain"));
            em.getTransaction().commit();
        } finally {
            em.close();
        }
        assertThat(db.queryLong("SELECT COUNT(*) FROM pen WHERE id = ?", penId)).isEqualTo(1);

        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        inLeaseDo(lease, fenced -> fenced.find(Crate.class, crateId).pens().add(fenced.find(Pen.class, penId)));
        assertThat(db.queryLong("SELECT crate_id FROM pen WHERE id = ?", penId)).isEqualTo(crateId);
        lease.close();
    }

    /**
     * Removing a {@code @SoftDelete} fenced entity (an UPDATE of its deleted
     * column that leaves the version) is fenced; without a lease it is refused; a copy read before
     * cannot write the removed row.
     */
    @Test
    void aSoftDeletedFencedEntityIsRemovedUnderTheFenceAndStaysRemoved() throws Exception {
        long id = ids.incrementAndGet();
        db.execute("INSERT INTO soft_item (id, quantity) VALUES (?, 5)", id);
        assertNoLease(em -> em.remove(em.find(SoftItem.class, id)));
        assertThat(db.queryLong("SELECT COUNT(*) FROM soft_item WHERE id = ? AND NOT deleted", id))
                .as("not removed without a lease")
                .isEqualTo(1);

        Lease lease = newLock().acquire(WAIT, LONG_LEASE);
        SoftItem detached = inLease(lease, em -> em.find(SoftItem.class, id));
        inLeaseDo(lease, em -> em.remove(em.find(SoftItem.class, id)));
        assertThat(db.queryLong("SELECT COUNT(*) FROM soft_item WHERE id = ? AND deleted", id))
                .as("removed")
                .isEqualTo(1);

        detached.take(5);
        assertThat(catchThrowable(() -> inLease(lease, em -> em.merge(detached))))
                .as("a copy read before the removal")
                .isNotNull();
        assertThat(db.queryLong("SELECT quantity FROM soft_item WHERE id = ? AND deleted", id))
                .isEqualTo(5);
        lease.close();
    }

    // ----- Fencing.inTransaction -----

    @Test
    void inTransactionReleasesTheLeaseOnlyAfterTheTransactionCompleted() throws Exception {
        long id = newItem(10);
        FencedLock lock = newLock();
        Lease[] seen = new Lease[1];
        Fencing.inTransaction(lock, WAIT, emf, em -> {
            em.find(Item.class, id).take(1);
            em.flush();
            seen[0] = Fencing.currentLease().orElseThrow();
            assertThat(heldByAnother(lock)).as("held during the work").isTrue();
            return null;
        });
        assertThat(seen[0].isValid()).as("released after the commit").isFalse();
        assertThat(heldByAnother(lock)).isFalse();
        assertThat(quantityOf(id)).isEqualTo(9);
        assertThat(fenceRow(lock)).isEqualTo(seen[0].token());
    }

    // ----- helpers -----

    private boolean heldByAnother(FencedLock lock) {
        Optional<Lease> other = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return lock.tryAcquire(Duration.ZERO);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                })
                .join();
        other.ifPresent(Lease::close);
        return other.isEmpty();
    }

    FencedLock newLock() {
        return locks.lock("jpa:" + UUID.randomUUID());
    }

    long newItem(int quantity) {
        long id = ids.incrementAndGet();
        db.execute("INSERT INTO fenced_item (id, sku, quantity) VALUES (?, ?, ?)", id, "sku-" + id, quantity);
        return id;
    }

    int quantityOf(long id) {
        return db.queryLong("SELECT quantity FROM fenced_item WHERE id = ?", id).intValue();
    }

    long fenceOf(long id) {
        return db.queryLong("SELECT fence FROM fenced_item WHERE id = ?", id);
    }

    Long fenceRow(FencedLock lock) {
        return db.queryLong("SELECT token FROM fencedlock_fence WHERE lock_name = ?", lock.name());
    }

    /** Runs {@code work} in a transaction begun with {@code lease} bound, and commits. */
    <T> T inLease(Lease lease, java.util.function.Function<EntityManager, T> work) {
        EntityManager em = emf.createEntityManager();
        try (FencingScope scope = Fencing.bind(lease)) {
            em.getTransaction().begin();
            try {
                T result = work.apply(em);
                em.getTransaction().commit();
                return result;
            } finally {
                if (em.getTransaction().isActive()) {
                    em.getTransaction().rollback();
                }
            }
        } finally {
            em.close();
        }
    }

    void inLeaseDo(Lease lease, Consumer<EntityManager> work) {
        inLease(lease, em -> {
            work.accept(em);
            return null;
        });
    }

    /** {@code work} in a transaction begun without a lease must fail with {@link NoLeaseBoundException}. */
    void assertNoLease(Consumer<EntityManager> work) {
        EntityManager em = emf.createEntityManager();
        Throwable failure;
        try {
            em.getTransaction().begin();
            failure = catchThrowable(() -> {
                work.accept(em);
                em.getTransaction().commit();
            });
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
        } finally {
            em.close();
        }
        assertThat(failure).as("a write without a lease").isNotNull();
        assertThat(causes(failure)).anyMatch(NoLeaseBoundException.class::isInstance);
    }

    static StaleFencingTokenException stale(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, Reason reason) {
        Throwable failure = catchThrowable(call);
        StaleFencingTokenException stale = StaleFencingTokenException.findIn(failure)
                .orElseThrow(
                        () -> new AssertionError("expected a StaleFencingTokenException, got " + failure, failure));
        assertThat(stale.reason()).isEqualTo(reason);
        return stale;
    }

    static java.util.List<Throwable> causes(Throwable failure) {
        java.util.List<Throwable> all = new java.util.ArrayList<>();
        for (Throwable t = failure; t != null && !all.contains(t); t = t.getCause()) {
            all.add(t);
        }
        return all;
    }

    static String rootMessages(Throwable failure) {
        StringBuilder text = new StringBuilder();
        causes(failure).forEach(t -> text.append(t).append('\n'));
        return text.toString();
    }
}
