package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import org.hibernate.JDBCException;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.exception.ConstraintViolationException;
import org.hibernate.generator.values.GeneratedValues;
import org.hibernate.persister.entity.mutation.InsertCoordinator;

/**
 * Runs Hibernate's INSERT of a fenced entity after the fencing checks. There is no row to compare
 * with: the primary key refuses a second row with the same id, and a refusal caused by a row that
 * a later holder wrote is reported as a {@link dev.fencedlock.jpa.StaleFencingTokenException}
 * (under SERIALIZABLE, PostgreSQL reports such a clash as a serialization failure when both
 * transactions had read the id as free). Anything else
 * about inserts is fenced only by the lock fence at commit, when it is on ({@link LockFence}).
 */
final class FencedInsertCoordinator extends FencedCoordinator<InsertCoordinator> implements InsertCoordinator {
    FencedInsertCoordinator(InsertCoordinator delegate, FencedEntity fenced) {
        super(delegate, fenced);
    }

    /**
     * An insert whose id the database generates: no id can clash, so only the checks apply here
     * (and the lock fence at commit).
     */
    @Override
    public GeneratedValues insert(Object entity, Object[] values, SharedSessionContractImplementor session) {
        Lease lease = fenced.beginWrite("insert", entity, null, session);
        fenced.requireStamped(fenced.fenceIn(values), lease, null);
        return delegate.insert(entity, values, session);
    }

    @Override
    public GeneratedValues insert(Object entity, Object id, Object[] values, SharedSessionContractImplementor session) {
        Lease lease = fenced.beginWrite("insert", entity, id, session);
        fenced.requireStamped(fenced.fenceIn(values), lease, id);
        try {
            return delegate.insert(entity, id, values, session);
        } catch (JDBCException e) {
            if (!(e instanceof ConstraintViolationException) && !ConcurrencyFailures.isConcurrencyFailure(e)) {
                throw e;
            }
            throw fenced.insertRefused(lease, entity, id, e, session);
        }
    }
}
