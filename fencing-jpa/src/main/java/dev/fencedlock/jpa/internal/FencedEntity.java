package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.jpa.NoLeaseBoundException;
import dev.fencedlock.jpa.StaleFencingTokenException;
import dev.fencedlock.jpa.StaleFencingTokenException.Reason;
import jakarta.persistence.TransactionRequiredException;
import java.util.Optional;
import org.hibernate.JDBCException;
import org.hibernate.StatelessSession;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.persister.entity.EntityPersister;

/**
 * The fencing facts of one fenced entity type at runtime (where its fence lives in the state and
 * in the table) and the checks every fenced statement goes through. Immutable and thread-safe.
 */
final class FencedEntity {
    private final EntityPersister persister;
    private final int fenceIndex;
    private final String lookupSql;
    private final String lockingLookupSql;
    private final LockFence lockFence;

    private FencedEntity(
            EntityPersister persister, int fenceIndex, String lookupSql, String lockingLookupSql, LockFence lockFence) {
        this.persister = persister;
        this.fenceIndex = fenceIndex;
        this.lookupSql = lookupSql;
        this.lockingLookupSql = lockingLookupSql;
        this.lockFence = lockFence;
    }

    /** The fencing facts of {@code persister}'s entity, empty if it has no fence field. */
    static Optional<FencedEntity> of(EntityPersister persister) {
        Class<?> type = persister.getMappedClass();
        if (type == null) {
            return Optional.empty();
        }
        return FenceField.of(type).map(field -> {
            var attribute = persister.findAttributeMapping(field.name());
            if (attribute == null) {
                throw new IllegalStateException("Fence field " + field + " is not a persistent attribute of entity "
                        + persister.getEntityName());
            }
            var column = attribute.getSelectable(0);
            StringBuilder sql = new StringBuilder("select ")
                    .append(column.getSelectionExpression())
                    .append(" from ")
                    .append(persister.physicalTableNameForMutation(column))
                    .append(" where ");
            String[] idColumns = persister.getIdentifierColumnNames();
            for (int i = 0; i < idColumns.length; i++) {
                sql.append(i == 0 ? "" : " and ").append(idColumns[i]).append("=?");
            }
            String lookup = sql.toString();
            String locking = lookup
                    + persister.getFactory().getJdbcServices().getDialect().getForUpdateString();
            return new FencedEntity(
                    persister,
                    attribute.getStateArrayPosition(),
                    lookup,
                    locking,
                    LockFence.of(persister.getFactory()));
        });
    }

    String entityName() {
        return persister.getEntityName();
    }

    long fenceIn(Object[] state) {
        return (Long) state[fenceIndex];
    }

    /**
     * The checks every fenced write starts with: an ordinary session, inside a transaction, with a
     * lease bound that is still valid. Registers the lease for the checks at commit (validity, and
     * the lock fence if it is on).
     */
    Lease beginWrite(String operation, Object entity, Object id, SharedSessionContractImplementor session) {
        if (session instanceof StatelessSession) {
            throw new UnsupportedOperationException("Fenced entity " + entityName()
                    + " cannot be written through a StatelessSession: it keeps no snapshot of the fence value "
                    + "read, so the write could not be checked against it; use a Session or EntityManager");
        }
        if (!session.isTransactionInProgress()) {
            throw new TransactionRequiredException(
                    "The " + operation + " of fenced entity " + entityName() + "#" + id + " needs a transaction");
        }
        Lease lease = LeaseBinding.current().orElseThrow(() -> new NoLeaseBoundException(operation, entityName()));
        if (!lease.isValid()) {
            throw refusal(Reason.LEASE_NOT_VALID, lease, entity, id, null, "the lease expired or was lost", null);
        }
        TransactionLeases.register(session, lease, lockFence);
        return lease;
    }

    /** Refuses a state that the listener did not stamp with the bound lease's token. */
    void requireStamped(long stamped, Lease lease, Object id) {
        if (stamped != lease.token()) {
            throw new IllegalStateException("Fenced entity " + entityName() + "#" + id + " carries fence " + stamped
                    + " but is flushed under the lease of lock '" + lease.lockName() + "' with token " + lease.token()
                    + "; is FencingListener in its @EntityListeners, and was the entity changed and flushed "
                    + "under the same lease?");
        }
    }

    /**
     * Refuses the write before any statement when the row as read, or the entity as the application
     * holds it, does not allow it.
     *
     * @param read the fence value the session read from the row
     * @param carried the fence value the entity carried before stamping, or null if unknown
     */
    void checkRead(Lease lease, Object entity, Object id, long read, Long carried) {
        if (carried != null && carried != read && carried != lease.token()) {
            throw refusal(
                    Reason.ROW_CHANGED,
                    lease,
                    entity,
                    id,
                    read,
                    "the entity carried fence " + carried + " but the row this session read holds " + read
                            + ": it is a copy of an older read (merged from a detached instance, or its fence "
                            + "field was set by hand)",
                    null);
        }
        if (read > lease.token()) {
            throw refusal(Reason.NEWER_TOKEN_READ, lease, entity, id, read, "a later holder has written the row", null);
        }
    }

    /**
     * Turns the database's refusal of an UPDATE or DELETE (no row matched) into a {@link
     * StaleFencingTokenException} when the fence moved, or returns {@code cause} unchanged when the
     * fence still holds {@code read} (the entity's own version column refused the write). The fence
     * is read on the session's own connection with a locking read, which sees the latest committed
     * value also under REPEATABLE READ (MariaDB/MySQL), where a plain read would see the
     * transaction's snapshot; the refused statement changed nothing, so a PostgreSQL transaction is
     * still usable.
     */
    RuntimeException rowRefused(
            Lease lease,
            Object entity,
            Object id,
            long read,
            RuntimeException cause,
            SharedSessionContractImplementor session) {
        Long current;
        try {
            current = SessionJdbc.queryLong(session, lockingLookupSql, byId(id, session));
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            return refusal(Reason.ROW_CHANGED, lease, entity, id, null, "the row no longer held fence " + read, cause);
        }
        return changedOr(lease, entity, id, read, current, cause);
    }

    /**
     * Turns a concurrency failure of an UPDATE or DELETE (a serialization failure under REPEATABLE
     * READ or SERIALIZABLE, a deadlock, a lock timeout) into a {@link StaleFencingTokenException}
     * when the committed row no longer holds {@code read}, or returns {@code cause} unchanged: then
     * no newer write has committed (yet) and the failure is the database's to report. The row is
     * read on a separate connection, because the failure may have left the transaction unusable.
     */
    RuntimeException rowRaced(
            Lease lease,
            Object entity,
            Object id,
            long read,
            JDBCException cause,
            SharedSessionContractImplementor session) {
        Long current;
        try {
            current = isolatedLookup(id, session);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            return cause;
        }
        return changedOr(lease, entity, id, read, current, cause);
    }

    private RuntimeException changedOr(
            Lease lease, Object entity, Object id, long read, Long current, RuntimeException cause) {
        if (current == null) {
            return refusal(Reason.ROW_CHANGED, lease, entity, id, null, "the row no longer exists", cause);
        }
        if (current == read) {
            return cause;
        }
        return refusal(
                Reason.ROW_CHANGED,
                lease,
                entity,
                id,
                current,
                "the row no longer held fence " + read + " that this transaction read",
                cause);
    }

    /**
     * Turns a constraint violation or a concurrency failure of an INSERT into a {@link
     * StaleFencingTokenException} when a row with the same id exists with a newer fence, or returns
     * {@code cause} unchanged.
     */
    RuntimeException insertRefused(
            Lease lease, Object entity, Object id, RuntimeException cause, SharedSessionContractImplementor session) {
        Long existing;
        try {
            existing = isolatedLookup(id, session);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            return cause;
        }
        if (existing == null || existing <= lease.token()) {
            return cause;
        }
        return refusal(
                Reason.DUPLICATE_ROW,
                lease,
                entity,
                id,
                existing,
                "a row with this id was written by a later holder",
                cause);
    }

    StaleFencingTokenException refusal(
            Reason reason, Lease lease, Object entity, Object id, Long current, String detail, Throwable cause) {
        return new StaleFencingTokenException(
                reason, lease.lockName(), entity, entityName(), id, lease.token(), current, detail, cause);
    }

    /**
     * Reads the row's fence on a separate connection and transaction: after a failed INSERT a
     * PostgreSQL transaction accepts no further statements, and the conflicting row is committed
     * (the INSERT waited for it), so a fresh transaction sees it.
     */
    private Long isolatedLookup(Object id, SharedSessionContractImplementor session) {
        return SessionJdbc.isolatedQueryLong(session, lookupSql, byId(id, session));
    }

    private SessionJdbc.Parameters byId(Object id, SharedSessionContractImplementor session) {
        return statement -> persister.getIdentifierType().nullSafeSet(statement, id, 1, session);
    }
}
