package dev.fencedlock.jpa.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FenceRefusedException.Reason;
import dev.fencedlock.Lease;
import dev.fencedlock.jpa.Fencing;
import dev.fencedlock.jpa.StaleFencingTokenException;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.criteria.CriteriaBuilder;
import jakarta.persistence.criteria.CriteriaDelete;
import jakarta.persistence.criteria.CriteriaQuery;
import jakarta.persistence.criteria.CriteriaUpdate;
import jakarta.persistence.criteria.Path;
import jakarta.persistence.criteria.Predicate;
import jakarta.persistence.criteria.Root;
import jakarta.persistence.metamodel.SingularAttribute;
import java.util.List;
import org.hibernate.engine.spi.SharedSessionContractImplementor;

/**
 * Fenced bulk statements, built with the Criteria API:
 *
 * <ol>
 *   <li>they must run in a fenced transaction whose lease is still valid ({@link
 *       OpenTransactions#requireFenced}): the fence guard has ordered it among the lock's
 *       transactions;
 *   <li>the UPDATE or DELETE carries {@code AND fence <= :token}; an UPDATE also sets {@code fence =
 *       :token} and increments the entity's {@code @Version}, so that copies read before it fail
 *       their version check;
 *   <li>a locking read then looks for a row the restriction selects whose fence is newer than the
 *       token (written under another fence row, or by a writer outside the fence); if there is one,
 *       the statement skipped it and the whole change is refused.
 * </ol>
 */
final class FencedBulk {
    private FencedBulk() {}

    public static <T> int update(
            EntityManager em, Class<T> type, Fencing.Restriction<T> where, Fencing.Assignments<T> assignments) {
        String fence = fenceAttribute(type);
        Lease lease = OpenTransactions.requireFenced("fenced bulk update of " + type.getName());
        CriteriaBuilder cb = em.getCriteriaBuilder();
        CriteriaUpdate<T> update = cb.createCriteriaUpdate(type);
        Root<T> root = update.from(type);
        if (assignments != null) {
            assignments.set(cb, update, root);
        }
        Path<Long> fencePath = root.get(fence);
        update.set(fencePath, lease.token());
        Path<Number> version = root.get(versionAttribute(em, type));
        update.set(version, cb.sum(version, 1));
        update.where(guarded(cb, where, root, cb.le(fencePath, lease.token())));
        int updated = em.createQuery(update).executeUpdate();
        refuseSkippedRows(em, type, where, fence, lease);
        return updated;
    }

    public static <T> int delete(EntityManager em, Class<T> type, Fencing.Restriction<T> where) {
        String fence = fenceAttribute(type);
        Lease lease = OpenTransactions.requireFenced("fenced bulk delete of " + type.getName());
        CriteriaBuilder cb = em.getCriteriaBuilder();
        CriteriaDelete<T> delete = cb.createCriteriaDelete(type);
        Root<T> root = delete.from(type);
        delete.where(guarded(cb, where, root, cb.le(root.get(fence), lease.token())));
        int deleted = em.createQuery(delete).executeUpdate();
        refuseSkippedRows(em, type, where, fence, lease);
        return deleted;
    }

    private static String fenceAttribute(Class<?> type) {
        return FenceField.of(type)
                .orElseThrow(() -> new IllegalArgumentException(
                        "Entity class " + type.getName() + " has no @FencingToken field; it is not fenced"))
                .name();
    }

    private static String versionAttribute(EntityManager em, Class<?> type) {
        return em.getMetamodel().entity(type).getSingularAttributes().stream()
                .filter(SingularAttribute::isVersion)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("Fenced entity " + type.getName() + " has no @Version"))
                .getName();
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
                    new FenceRefusedException(
                            Reason.NEWER_TOKEN_READ,
                            lease.lockName(),
                            lease.token(),
                            newer.get(0),
                            "the bulk statement selects rows of " + type.getName()
                                    + " that a later holder has written; roll the transaction back",
                            null),
                    null,
                    type.getName());
        }
    }
}
