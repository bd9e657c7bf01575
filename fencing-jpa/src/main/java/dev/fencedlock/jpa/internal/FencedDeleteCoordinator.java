package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import org.hibernate.JDBCException;
import org.hibernate.StaleStateException;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.persister.entity.mutation.DeleteCoordinator;

/**
 * Runs Hibernate's DELETE of a fenced entity after the fencing checks; like {@link
 * FencedUpdateCoordinator}, the statement carries {@code fence = <value read>}.
 */
final class FencedDeleteCoordinator extends FencedCoordinator<DeleteCoordinator> implements DeleteCoordinator {
    FencedDeleteCoordinator(DeleteCoordinator delegate, FencedEntity fenced) {
        super(delegate, fenced);
    }

    @Override
    public void delete(Object entity, Object id, Object version, SharedSessionContractImplementor session) {
        Lease lease = fenced.beginWrite("delete", entity, id, session);
        var entry =
                entity == null ? null : session.getPersistenceContextInternal().getEntry(entity);
        if (entry == null || entry.getLoadedState() == null) {
            throw new IllegalStateException("Fenced entity " + fenced.entityName() + "#" + id
                    + " is deleted without a snapshot of the state read, so the fence read is unknown");
        }
        long read = fenced.fenceIn(entry.getLoadedState());
        long carried = FenceField.require(entity.getClass()).get(entity);
        fenced.checkRead(lease, entity, id, read, carried);
        try {
            delegate.delete(entity, id, version, session);
        } catch (StaleStateException e) {
            throw fenced.rowRefused(lease, entity, id, read, e, session);
        } catch (JDBCException e) {
            if (!ConcurrencyFailures.isConcurrencyFailure(e)) {
                throw e;
            }
            throw fenced.rowRaced(lease, entity, id, read, e, session);
        }
    }
}
