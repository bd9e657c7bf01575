package dev.fencedlock.jpa;

import dev.fencedlock.jpa.internal.Stamping;
import jakarta.persistence.PrePersist;
import jakarta.persistence.PreRemove;
import jakarta.persistence.PreUpdate;

/**
 * The JPA entity listener of fenced entities: {@code @EntityListeners(FencingListener.class)} on an
 * entity with a {@link FencingToken} field.
 *
 * <p>Before an insert or update it writes the token of the lease bound to the current thread (see
 * {@link Fencing#bind}) into the fence field; before a delete it only requires a bound lease. With
 * no lease bound it throws {@link NoLeaseBoundException} and the provider marks the transaction
 * for rollback.
 *
 * <p>The listener only stamps. Whether the write may happen is decided right before each statement
 * and by the statement itself (see {@link FencingToken}): the lease must still be valid, the row
 * must still hold the fence value this transaction read, and that value must not be newer than
 * the lease's token; otherwise {@link StaleFencingTokenException}.
 *
 * <p>Stateless and thread-safe; the provider creates the instance.
 */
public class FencingListener {

    @PrePersist
    void beforeInsert(Object entity) {
        Stamping.beforeInsert(entity);
    }

    @PreUpdate
    void beforeUpdate(Object entity) {
        Stamping.beforeUpdate(entity);
    }

    @PreRemove
    void beforeRemove(Object entity) {
        Stamping.beforeRemove(entity);
    }
}
