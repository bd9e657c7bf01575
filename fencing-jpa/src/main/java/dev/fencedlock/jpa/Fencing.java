package dev.fencedlock.jpa;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.jpa.internal.JpaFence;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.criteria.CriteriaBuilder;
import jakarta.persistence.criteria.CriteriaUpdate;
import jakarta.persistence.criteria.Predicate;
import jakarta.persistence.criteria.Root;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Entry points of fenced JPA writes.
 *
 * <pre>{@code
 * // acquire, run one transaction under the lease, commit, then release
 * int left = Fencing.inTransaction(client.lock("inventory:sku-42"), Duration.ofSeconds(5), emf, em -> {
 *     Item item = em.find(Item.class, 42L);
 *     item.quantity--;            // flushed as: UPDATE ... SET quantity=?, fence=<token>
 *     return item.quantity;       //             WHERE id=? AND fence=<fence read>
 * });
 *
 * // or bind a lease you manage yourself
 * try (Lease lease = lock.acquire(Duration.ofSeconds(5));
 *      FencingScope scope = Fencing.bind(lease)) {
 *     em.getTransaction().begin();
 *     ...
 *     em.getTransaction().commit();
 * }
 * }</pre>
 *
 * <p>A transaction begun while a lease is bound runs the fence guard ({@code fencing-jdbc}'s fence
 * row, docs/fencing.md) as its first statement: the lock's transactions then run
 * one at a time in token order, and one with an older token than a registered one is refused at
 * {@code begin()}, or on PostgreSQL, where the guard travels in one round trip with the
 * transaction's first statement, at that statement (the transaction is then marked for rollback).
 * Bulk JPQL/Criteria statements and native SQL that write a fenced table are
 * refused outside such a transaction; inside one, an UPDATE of a fenced entity's table must also
 * change its {@code @Version}. {@link #fencedUpdate} and {@link #fencedDelete} do that and stamp
 * the fence.
 *
 * <p>All methods are thread-safe; bindings are per thread.
 */
public final class Fencing {
    private Fencing() {}

    /**
     * Binds {@code lease} to the current thread until the returned scope is closed. Transactions
     * begun on this thread meanwhile run the fence guard for it as their first statement; fenced
     * writes in them are stamped with its token. Bind before the transaction begins: a write in a
     * transaction that began without this lease bound is refused.
     *
     * <p>Binds nest: the innermost lease applies until its scope closes, then the enclosing one
     * applies again. Each fenced row must always be written under the same lock name, since tokens
     * of different locks cannot be compared; which lock protects which rows is the application's
     * decision.
     *
     * @throws IllegalArgumentException if {@code lease} is null
     */
    public static FencingScope bind(Lease lease) {
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null");
        }
        return new FencingScope(lease, JpaFence.bind(lease));
    }

    /** The lease bound to the current thread (the innermost one), empty if none. */
    public static Optional<Lease> currentLease() {
        return JpaFence.currentLease();
    }

    /**
     * Acquires {@code lock} (an auto-renewing lease, waiting up to {@code wait}), then, with the
     * lease bound, runs {@code work} in a new resource-local transaction of a new entity manager,
     * commits, closes the entity manager, and only then releases the lease. If {@code work} or the
     * commit fails, the transaction is rolled back before the lease is released.
     *
     * @return what {@code work} returned
     * @throws StaleFencingTokenException if the transaction or a fenced write was refused (a newer
     *     token of the lock is registered, or the lease was no longer valid), also when the
     *     provider reported it wrapped (for example in a {@link jakarta.persistence.RollbackException}
     *     from the commit); the transaction has then been rolled back
     * @throws dev.fencedlock.LockTimeoutException if the lock stayed taken for the whole wait
     * @throws InterruptedException if interrupted while waiting for the lock; nothing ran
     */
    public static <T> T inTransaction(
            FencedLock lock, Duration wait, EntityManagerFactory factory, Function<? super EntityManager, T> work)
            throws InterruptedException {
        Objects.requireNonNull(factory, "factory");
        Objects.requireNonNull(work, "work");
        try (Lease lease = lock.acquire(wait)) {
            EntityManager em = factory.createEntityManager();
            try {
                return runInTransaction(lease, em, work);
            } finally {
                em.close();
            }
        }
    }

    /**
     * Like {@link #inTransaction(FencedLock, Duration, EntityManagerFactory, Function)}, on an
     * entity manager the caller owns and keeps open. It must be resource-local and have no active
     * transaction.
     *
     * @throws IllegalStateException if {@code em} already has an active transaction; nothing is
     *     acquired
     */
    public static <T> T inTransaction(
            FencedLock lock, Duration wait, EntityManager em, Function<? super EntityManager, T> work)
            throws InterruptedException {
        Objects.requireNonNull(work, "work");
        if (em.getTransaction().isActive()) {
            throw new IllegalStateException("The EntityManager already has an active transaction; "
                    + "Fencing.inTransaction begins and commits its own");
        }
        try (Lease lease = lock.acquire(wait)) {
            return runInTransaction(lease, em, work);
        }
    }

    /**
     * Runs a bulk UPDATE of fenced entities: the rows {@code where} selects are updated with
     * {@code assignments}, their fence set to the bound lease's token, and only where their fence
     * is not newer than that token (the condition is part of the statement). If the statement left
     * any selected row alone because it carried a newer fence, the update is refused with {@link
     * StaleFencingTokenException}; the caller's transaction must then roll back (the provider marks
     * it so). The entity's {@code @Version} is incremented in every updated row. Bulk statements
     * bypass the persistence context: entities already loaded keep their state.
     *
     * @param where selects the rows; null for all rows
     * @return the number of rows updated
     * @throws NoLeaseBoundException if no lease is bound to the current thread
     * @throws IllegalStateException if the transaction began before the lease was bound
     * @throws IllegalArgumentException if {@code type} has no {@link FencingToken} field
     */
    public static <T> int fencedUpdate(
            EntityManager em, Class<T> type, Restriction<T> where, Assignments<T> assignments) {
        return JpaFence.bulkUpdate(em, type, where, assignments);
    }

    /**
     * Runs a bulk DELETE of fenced entities, fenced like {@link #fencedUpdate}: only rows whose
     * fence is not newer than the bound lease's token are deleted, and the delete is refused if
     * {@code where} selected any other.
     *
     * @param where selects the rows; null for all rows
     * @return the number of rows deleted
     */
    public static <T> int fencedDelete(EntityManager em, Class<T> type, Restriction<T> where) {
        return JpaFence.bulkDelete(em, type, where);
    }

    /** Selects the rows of a fenced bulk statement. */
    @FunctionalInterface
    public interface Restriction<T> {
        /** May be called more than once, each time with a new root; must return a new predicate. */
        Predicate where(CriteriaBuilder cb, Root<T> root);
    }

    /** Sets the columns of a fenced bulk UPDATE (the fence column is set by {@link Fencing}). */
    @FunctionalInterface
    public interface Assignments<T> {
        void set(CriteriaBuilder cb, CriteriaUpdate<T> update, Root<T> root);
    }

    private static <T> T runInTransaction(Lease lease, EntityManager em, Function<? super EntityManager, T> work) {
        EntityTransaction transaction = em.getTransaction();
        FencingScope scope = bind(lease);
        try {
            transaction.begin();
            T result = work.apply(em);
            transaction.commit();
            return result;
        } catch (RuntimeException failure) {
            rollBackQuietly(transaction, failure);
            throw StaleFencingTokenException.findIn(failure)
                    .<RuntimeException>map(s -> s)
                    .orElse(failure);
        } catch (Error failure) {
            rollBackQuietly(transaction, failure);
            throw failure;
        } finally {
            scope.close();
        }
    }

    private static void rollBackQuietly(EntityTransaction transaction, Throwable failure) {
        try {
            if (transaction.isActive()) {
                transaction.rollback();
            }
        } catch (RuntimeException rollbackFailure) {
            failure.addSuppressed(rollbackFailure);
        }
    }
}
