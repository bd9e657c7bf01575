package dev.fencedlock.jpa.internal;

import java.util.function.BiFunction;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.values.GeneratedValues;
import org.hibernate.mapping.Collection;
import org.hibernate.mapping.RootClass;
import org.hibernate.metamodel.mapping.AuxiliaryMapping;
import org.hibernate.metamodel.mapping.PluralAttributeMapping;
import org.hibernate.metamodel.mapping.internal.MappingModelCreationProcess;
import org.hibernate.persister.collection.CollectionPersister;
import org.hibernate.persister.collection.mutation.DeleteRowsCoordinator;
import org.hibernate.persister.collection.mutation.InsertRowsCoordinator;
import org.hibernate.persister.collection.mutation.RemoveCoordinator;
import org.hibernate.persister.collection.mutation.UpdateRowsCoordinator;
import org.hibernate.persister.entity.EntityPersister;
import org.hibernate.persister.entity.mutation.DeleteCoordinator;
import org.hibernate.persister.entity.mutation.InsertCoordinator;
import org.hibernate.persister.entity.mutation.UpdateCoordinator;
import org.hibernate.persister.state.internal.StandardStateManagement;
import org.hibernate.persister.state.spi.StateManagement;
import org.hibernate.sql.model.MutationOperationGroup;

/**
 * Hibernate's standard state management with the entity coordinators of fenced entities wrapped
 * in the fencing checks. {@link FencingIntegrator} installs it on the root class of every fenced
 * hierarchy; subclasses without a fence field in such a hierarchy get the standard coordinators.
 * Hibernate looks the strategy up through the {@code INSTANCE} field.
 */
public final class FencedStateManagement implements StateManagement {
    public static final FencedStateManagement INSTANCE = new FencedStateManagement();

    private static final StateManagement STANDARD = StandardStateManagement.INSTANCE;

    private FencedStateManagement() {}

    @Override
    public InsertCoordinator createInsertCoordinator(EntityPersister persister) {
        return fencedOr(persister, STANDARD.createInsertCoordinator(persister), FencedInsertCoordinator::new);
    }

    @Override
    public UpdateCoordinator createUpdateCoordinator(EntityPersister persister) {
        return fencedOr(persister, STANDARD.createUpdateCoordinator(persister), FencedUpdateCoordinator::new);
    }

    /** Upserts come only from {@code StatelessSession.upsert}, which keeps no read to fence against. */
    @Override
    public UpdateCoordinator createMergeCoordinator(EntityPersister persister) {
        return fencedOr(
                persister,
                STANDARD.createMergeCoordinator(persister),
                (standard, fenced) -> new RefusedUpsert(standard, fenced.entityName()));
    }

    @Override
    public DeleteCoordinator createDeleteCoordinator(EntityPersister persister) {
        return fencedOr(persister, STANDARD.createDeleteCoordinator(persister), FencedDeleteCoordinator::new);
    }

    @Override
    public InsertRowsCoordinator createInsertRowsCoordinator(CollectionPersister persister) {
        return STANDARD.createInsertRowsCoordinator(persister);
    }

    @Override
    public UpdateRowsCoordinator createUpdateRowsCoordinator(CollectionPersister persister) {
        return STANDARD.createUpdateRowsCoordinator(persister);
    }

    @Override
    public DeleteRowsCoordinator createDeleteRowsCoordinator(CollectionPersister persister) {
        return STANDARD.createDeleteRowsCoordinator(persister);
    }

    @Override
    public RemoveCoordinator createRemoveCoordinator(CollectionPersister persister) {
        return STANDARD.createRemoveCoordinator(persister);
    }

    @Override
    public AuxiliaryMapping createAuxiliaryMapping(
            EntityPersister persister, RootClass bootDescriptor, MappingModelCreationProcess creationProcess) {
        return STANDARD.createAuxiliaryMapping(persister, bootDescriptor, creationProcess);
    }

    @Override
    public AuxiliaryMapping createAuxiliaryMapping(
            PluralAttributeMapping pluralAttributeMapping,
            Collection bootDescriptor,
            MappingModelCreationProcess creationProcess) {
        return STANDARD.createAuxiliaryMapping(pluralAttributeMapping, bootDescriptor, creationProcess);
    }

    private static <C> C fencedOr(EntityPersister persister, C standard, BiFunction<C, FencedEntity, C> fence) {
        return FencedEntity.of(persister)
                .map(fenced -> fence.apply(standard, fenced))
                .orElse(standard);
    }

    private record RefusedUpsert(UpdateCoordinator delegate, String entityName) implements UpdateCoordinator {
        @Override
        public MutationOperationGroup getStaticMutationOperationGroup() {
            return delegate.getStaticMutationOperationGroup();
        }

        @Override
        public GeneratedValues update(
                Object entity,
                Object id,
                Object rowId,
                Object[] values,
                Object oldVersion,
                Object[] incomingOldValues,
                int[] dirtyAttributeIndexes,
                boolean hasDirtyCollection,
                SharedSessionContractImplementor session) {
            throw new UnsupportedOperationException("Fenced entity " + entityName + "#" + id
                    + " cannot be upserted: an upsert has no read to fence against; load it and update it");
        }

        @Override
        public void forceVersionIncrement(
                Object id, Object currentVersion, Object nextVersion, SharedSessionContractImplementor session) {
            delegate.forceVersionIncrement(id, currentVersion, nextVersion, session);
        }
    }
}
