package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.jpa.NoLeaseBoundException;

/**
 * What {@code FencingListener} does: stamp the bound lease's token into the fence field before
 * Hibernate takes the entity's state. The checks that need the row as read (validity, stale
 * copies, newer tokens) run later, right before the statement, in the fenced coordinators.
 */
public final class Stamping {
    private Stamping() {}

    /** Before an insert: the new row carries the lease's token. */
    public static void beforeInsert(Object entity) {
        Lease lease = requireLease("insert", entity);
        FenceField.require(entity.getClass()).set(entity, lease.token());
    }

    /**
     * Before an update: remembers the fence value the entity carried (what the application read,
     * or what a merge copied into it), then stamps the lease's token.
     */
    public static void beforeUpdate(Object entity) {
        Lease lease = requireLease("update", entity);
        FenceField field = FenceField.require(entity.getClass());
        LeaseBinding.rememberSeenFence(entity, field.get(entity));
        field.set(entity, lease.token());
    }

    /** Before a delete: fails fast when no lease is bound; the fence is checked at flush. */
    public static void beforeRemove(Object entity) {
        requireLease("delete", entity);
        FenceField.require(entity.getClass());
    }

    private static Lease requireLease(String operation, Object entity) {
        return LeaseBinding.current()
                .orElseThrow(() ->
                        new NoLeaseBoundException(operation, entity.getClass().getName()));
    }
}
