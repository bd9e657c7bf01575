package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import org.hibernate.JDBCException;
import org.hibernate.StaleStateException;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.values.GeneratedValues;
import org.hibernate.persister.entity.mutation.UpdateCoordinator;

/**
 * Runs Hibernate's UPDATE of a fenced entity after the fencing checks. The statement itself
 * carries {@code fence = <value read>} (see {@link FencingIntegrator}); a refusal by the database
 * comes back as a {@link StaleStateException} and is translated here, while the transaction is
 * still usable, so that the current fence can be looked up. A concurrency failure instead (under
 * REPEATABLE READ or SERIALIZABLE the database refuses to write a row changed since the snapshot
 * rather than match no row; or a deadlock, or a lock timeout) is translated too when the committed
 * fence moved.
 */
final class FencedUpdateCoordinator extends FencedCoordinator<UpdateCoordinator> implements UpdateCoordinator {
    FencedUpdateCoordinator(UpdateCoordinator delegate, FencedEntity fenced) {
        super(delegate, fenced);
    }

    @Override
    public GeneratedValues update(
            Object entity,
            Object id,
            Object rowId,
            Object[] values,
            Object oldVersion,
            Object[] incomingOldValues,
            int[] dirtyAttributeIndexes,
            boolean hasDirtyCollection,
            SharedSessionContractImplementor session) {
        Lease lease = fenced.beginWrite("update", entity, id, session);
        if (incomingOldValues == null) {
            throw new IllegalStateException("Fenced entity " + fenced.entityName() + "#" + id
                    + " is updated without a snapshot of the state read, so the fence read is unknown");
        }
        long read = fenced.fenceIn(incomingOldValues);
        Long carried = LeaseBinding.takeSeenFence(entity);
        fenced.requireStamped(fenced.fenceIn(values), lease, id);
        fenced.checkRead(lease, entity, id, read, carried);
        try {
            return delegate.update(
                    entity,
                    id,
                    rowId,
                    values,
                    oldVersion,
                    incomingOldValues,
                    dirtyAttributeIndexes,
                    hasDirtyCollection,
                    session);
        } catch (StaleStateException e) {
            throw fenced.rowRefused(lease, entity, id, read, e, session);
        } catch (JDBCException e) {
            if (!ConcurrencyFailures.isConcurrencyFailure(e)) {
                throw e;
            }
            throw fenced.rowRaced(lease, entity, id, read, e, session);
        }
    }

    /**
     * A forced version increment writes only the entity's own version column; it still carries the
     * fence condition, but stamps nothing and needs no lease.
     */
    @Override
    public void forceVersionIncrement(
            Object id, Object currentVersion, Object nextVersion, SharedSessionContractImplementor session) {
        delegate.forceVersionIncrement(id, currentVersion, nextVersion, session);
    }

    @Override
    public void forceVersionIncrement(
            Object id,
            Object currentVersion,
            Object nextVersion,
            boolean batching,
            SharedSessionContractImplementor session) {
        delegate.forceVersionIncrement(id, currentVersion, nextVersion, batching, session);
    }
}
