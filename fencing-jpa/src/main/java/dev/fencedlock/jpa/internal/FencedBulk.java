package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.jpa.Fencing;
import dev.fencedlock.jpa.NoLeaseBoundException;
import dev.fencedlock.jpa.StaleFencingTokenException;
import dev.fencedlock.jpa.StaleFencingTokenException.Reason;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.TransactionRequiredException;
import jakarta.persistence.criteria.CriteriaBuilder;
import jakarta.persistence.criteria.CriteriaDelete;
import jakarta.persistence.criteria.CriteriaQuery;
import jakarta.persistence.criteria.CriteriaUpdate;
import jakarta.persistence.criteria.Path;
import jakarta.persistence.criteria.Predicate;
import jakarta.persistence.criteria.Root;
import java.util.List;
import org.hibernate.engine.spi.SharedSessionContractImplementor;

/**
 * Fenced bulk statements, built with the Criteria API:
 *
 * <ol>
 *   <li>the bound lease must be valid and a transaction active;
 *   <li>the UPDATE or DELETE carries {@code AND fence <= :token} (an UPDATE also sets {@code fence
 *       = :token}), so no row with a newer fence is touched, whatever commits meanwhile;
 *   <li>a locking read then looks for a row the statement's restriction selects whose fence is
 *       newer than the token; if there is one, the statement skipped it and the whole change is
 *       refused. The read is a locking read so that it sees the latest committed rows also under
 *       REPEATABLE READ.
 * </ol>
 *
 * <p>The lease is registered for the checks at commit like any fenced write (validity, and the
 * lock fence if it is on).
 */
public final class FencedBulk {
    private FencedBulk() {}

    public static <T> int update(
            EntityManager em, Class<T> type, Fencing.Restriction<T> where, Fencing.Assignments<T> assignments) {
        Lease lease = begin(em, type, "bulk update");
        String fence = fenceAttribute(type);
        CriteriaBuilder cb = em.getCriteriaBuilder();
        CriteriaUpdate<T> update = cb.createCriteriaUpdate(type);
        Root<T> root = update.from(type);
        if (assignments != null) {
            assignments.set(cb, update, root);
        }
        Path<Long> fencePath = root.get(fence);
        update.set(fencePath, lease.token());
        update.where(guarded(cb, where, root, cb.le(fencePath, lease.token())));
        int updated = em.createQuery(update).executeUpdate();
        refuseSkippedRows(em, type, where, fence, lease);
        return updated;
    }

    public static <T> int delete(EntityManager em, Class<T> type, Fencing.Restriction<T> where) {
        Lease lease = begin(em, type, "bulk delete");
        String fence = fenceAttribute(type);
        CriteriaBuilder cb = em.getCriteriaBuilder();
        CriteriaDelete<T> delete = cb.createCriteriaDelete(type);
        Root<T> root = delete.from(type);
        delete.where(guarded(cb, where, root, cb.le(root.get(fence), lease.token())));
        int deleted = em.createQuery(delete).executeUpdate();
        refuseSkippedRows(em, type, where, fence, lease);
        return deleted;
    }

    private static Lease begin(EntityManager em, Class<?> type, String operation) {
        Lease lease = LeaseBinding.current().orElseThrow(() -> new NoLeaseBoundException(operation, type.getName()));
        SharedSessionContractImplementor session = em.unwrap(SharedSessionContractImplementor.class);
        if (!session.isTransactionInProgress()) {
            throw new TransactionRequiredException(
                    "The " + operation + " of fenced entity " + type.getName() + " needs a transaction");
        }
        if (!lease.isValid()) {
            throw new StaleFencingTokenException(
                    Reason.LEASE_NOT_VALID,
                    lease.lockName(),
                    null,
                    type.getName(),
                    null,
                    lease.token(),
                    null,
                    "the lease expired or was lost",
                    null);
        }
        TransactionLeases.register(session, lease, LockFence.of(session.getFactory()));
        return lease;
    }

    private static String fenceAttribute(Class<?> type) {
        return FenceField.of(type)
                .orElseThrow(() -> new IllegalArgumentException(
                        "Entity class " + type.getName() + " has no @FencingToken field; it is not fenced"))
                .name();
    }

    private static <T> Predicate guarded(
            CriteriaBuilder cb, Fencing.Restriction<T> where, Root<T> root, Predicate fenceCondition) {
        Predicate restriction = where == null ? null : where.where(cb, root);
        return restriction == null ? fenceCondition : cb.and(restriction, fenceCondition);
    }

    private static <T> void refuseSkippedRows(
            EntityManager em, Class<T> type, Fencing.Restriction<T> where, String fence, Lease lease) {
        CriteriaBuilder cb = em.getCriteriaBuilder();
        CriteriaQuery<Long> query = cb.createQuery(Long.class);
        Root<T> root = query.from(type);
        Path<Long> fencePath = root.get(fence);
        query.select(fencePath).where(guarded(cb, where, root, cb.gt(fencePath, lease.token())));
        List<Long> newer = em.createQuery(query)
                .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                .setMaxResults(1)
                .getResultList();
        if (!newer.isEmpty()) {
            em.unwrap(SharedSessionContractImplementor.class).markForRollbackOnly();
            throw new StaleFencingTokenException(
                    Reason.NEWER_TOKEN_READ,
                    lease.lockName(),
                    null,
                    type.getName(),
                    null,
                    lease.token(),
                    newer.get(0),
                    "the bulk statement selects rows that a later holder has written; roll the transaction back",
                    null);
        }
    }
}
