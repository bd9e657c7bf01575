package dev.fencedlock.jpa.internal;

import org.hibernate.persister.entity.mutation.MutationCoordinator;
import org.hibernate.sql.model.MutationOperationGroup;

/**
 * A Hibernate mutation coordinator of a fenced entity: runs the fencing checks, then lets
 * Hibernate's own coordinator issue the statement.
 */
abstract class FencedCoordinator<C extends MutationCoordinator> implements MutationCoordinator {
    protected final C delegate;
    protected final FencedEntity fenced;

    FencedCoordinator(C delegate, FencedEntity fenced) {
        this.delegate = delegate;
        this.fenced = fenced;
    }

    @Override
    public MutationOperationGroup getStaticMutationOperationGroup() {
        return delegate.getStaticMutationOperationGroup();
    }
}
