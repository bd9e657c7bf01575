package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.jpa.Fencing;
import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.util.Optional;

/**
 * The entry points of fencing-jpa's engine, for its public classes ({@link Fencing}, {@code
 * FencingScope}, {@code FencingListener}) and its friend the Spring starter; everything behind them
 * is package-private. Not part of the API. Stateless; each call's state is per thread.
 */
public final class JpaFence {
    private JpaFence() {}

    /**
     * Binds {@code lease} on the current thread above any binding already there.
     *
     * @return what unbinds it: must run on this thread, innermost binding first, else it throws
     *     {@link IllegalStateException} and changes nothing
     */
    public static Runnable bind(Lease lease) {
        LeaseBinding.Frame frame = LeaseBinding.push(lease);
        return () -> LeaseBinding.pop(frame);
    }

    /** The innermost lease bound to the current thread, empty if none. */
    public static Optional<Lease> currentLease() {
        return LeaseBinding.current();
    }

    /** {@link Fencing#fencedUpdate}. */
    public static <T> int bulkUpdate(
            EntityManager em, Class<T> type, Fencing.Restriction<T> where, Fencing.Assignments<T> assignments) {
        return FencedBulk.update(em, type, where, assignments);
    }

    /** {@link Fencing#fencedDelete}. */
    public static <T> int bulkDelete(EntityManager em, Class<T> type, Fencing.Restriction<T> where) {
        return FencedBulk.delete(em, type, where);
    }

    /** Before an insert of a fenced entity: a fenced transaction is required; the token is stamped. */
    public static void beforeInsert(Object entity) {
        Stamping.beforeInsert(entity);
    }

    /** Before an update of a fenced entity: refused if it carries a newer token; then stamped. */
    public static void beforeUpdate(Object entity) {
        Stamping.beforeUpdate(entity);
    }

    /** Before a delete of a fenced entity: a fenced transaction is required. */
    public static void beforeRemove(Object entity) {
        Stamping.beforeRemove(entity);
    }

    /**
     * The fenced transaction fencing-jpa began for {@code lease} in {@code table} on {@code
     * connection}, if it is the innermost transaction open on this thread ({@link
     * OpenTransactions#fenceOf}); empty otherwise.
     */
    public static Optional<FencedTransaction> fenceOf(Connection connection, FenceTable table, Lease lease) {
        return OpenTransactions.fenceOf(connection, table, lease);
    }
}
