package dev.fencedlock.jpa;

import dev.fencedlock.jpa.internal.JpaFence;
import jakarta.persistence.PrePersist;
import jakarta.persistence.PreRemove;
import jakarta.persistence.PreUpdate;

/**
 * The JPA entity listener of fenced entities: {@code @EntityListeners(FencingListener.class)} on an
 * entity with a {@link FencingToken} field.
 *
 * <p>Before an insert, update or delete it requires a fenced transaction: a lease bound to the
 * current thread (see {@link Fencing#bind}) that was already bound when the transaction began, so
 * that the fence guard ran for it, and is still valid. Before an insert or update it then writes
 * the lease's token into the fence field. With no lease bound it throws {@link
 * NoLeaseBoundException}; with a lease bound after the transaction began, {@link
 * IllegalStateException}; with a lease no longer valid, {@link StaleFencingTokenException}. The
 * provider then marks the transaction for rollback.
 *
 * <p>Stateless and thread-safe; the provider creates the instance.
 */
public class FencingListener {

    @PrePersist
    void beforeInsert(Object entity) {
        JpaFence.beforeInsert(entity);
    }

    @PreUpdate
    void beforeUpdate(Object entity) {
        JpaFence.beforeUpdate(entity);
    }

    @PreRemove
    void beforeRemove(Object entity) {
        JpaFence.beforeRemove(entity);
    }
}
