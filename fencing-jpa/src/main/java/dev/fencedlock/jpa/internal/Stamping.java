package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.jpa.StaleFencingTokenException;
import org.hibernate.annotations.SoftDelete;

/**
 * What {@code FencingListener} does before Hibernate takes an entity's state: require a fenced
 * transaction ({@link FencedTransactions#requireFenced}) and stamp the lease's token into the fence
 * field. The statement then writes the token and is restricted by the fence and the version read.
 */
public final class Stamping {
    /** Whether a class (or a superclass, or its package) is annotated {@code @SoftDelete}. */
    private static final ClassValue<Boolean> SOFT_DELETED = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                if (c.isAnnotationPresent(SoftDelete.class)
                        || (c.getPackage() != null && c.getPackage().isAnnotationPresent(SoftDelete.class))) {
                    return true;
                }
            }
            return false;
        }
    };

    private Stamping() {}

    /** Before an insert: the new row carries the lease's token. */
    public static void beforeInsert(Object entity) {
        FenceField field = FenceField.require(entity.getClass());
        Lease lease = FencedTransactions.requireFenced(
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
        Lease lease = FencedTransactions.requireFenced(
                "update of fenced entity " + entity.getClass().getName());
        long carried = field.get(entity);
        if (carried > lease.token()) {
            throw StaleFencingTokenException.newerTokenRead(lease, entity, carried);
        }
        field.set(entity, lease.token());
    }

    /**
     * Before a delete: a fenced transaction is required; the statement checks the fence and version
     * read.
     *
     * @throws UnsupportedOperationException if the entity is removed by soft delete
     */
    public static void beforeRemove(Object entity) {
        FenceField.require(entity.getClass());
        if (SOFT_DELETED.get(entity.getClass())) {
            throw new UnsupportedOperationException(
                    "Fenced entity " + entity.getClass().getName() + " is mapped "
                            + "with @SoftDelete, and cannot be removed: Hibernate removes it with an UPDATE of its deleted "
                            + "column that changes neither its @Version nor its fence, so a copy read before would not fail "
                            + "its version check. Map the flag as a field of the entity (e.g. 'boolean deleted') and set it: "
                            + "that is a fenced, versioned update");
        }
        FencedTransactions.requireFenced(
                "delete of fenced entity " + entity.getClass().getName());
    }
}
