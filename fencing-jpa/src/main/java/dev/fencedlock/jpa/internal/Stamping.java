package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;

/**
 * What {@code FencingListener} does before Hibernate takes an entity's state: require a fenced
 * transaction ({@link OpenTransactions#requireFenced}) and stamp the lease's token into the fence
 * field. The statement then writes the token and is restricted by the fence and the version read.
 */
final class Stamping {
    private Stamping() {}

    /** Before an insert: the new row carries the lease's token. */
    public static void beforeInsert(Object entity) {
        FenceField field = FenceField.require(entity.getClass());
        Lease lease = OpenTransactions.requireFenced(
                "insert of fenced entity " + entity.getClass().getName());
        field.set(entity, lease.token());
    }

    /**
     * Before an update: the fence the entity carries must not be newer than the lease's token (a row
     * a newer holder wrote, under the same lock name only if fence rows of different databases or
     * tables were mixed); then the token is stamped.
     */
    public static void beforeUpdate(Object entity) {
        FenceField field = FenceField.require(entity.getClass());
        Lease lease = OpenTransactions.requireFenced(
                "update of fenced entity " + entity.getClass().getName());
        long carried = field.get(entity);
        if (carried > lease.token()) {
            throw Refusals.newerTokenRead(lease, entity, carried);
        }
        field.set(entity, lease.token());
    }

    /** Before a delete: a fenced transaction is required; the statement checks the fence and version read. */
    public static void beforeRemove(Object entity) {
        FenceField.require(entity.getClass());
        OpenTransactions.requireFenced(
                "delete of fenced entity " + entity.getClass().getName());
    }
}
