package dev.fencedlock.jpa.internal;

import dev.fencedlock.jpa.FencingListener;
import dev.fencedlock.jpa.FencingSettings;
import jakarta.persistence.EntityListeners;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.hibernate.MappingException;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.ManagedEntity;
import org.hibernate.engine.spi.PersistentAttributeInterceptable;
import org.hibernate.engine.spi.SelfDirtinessTracker;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.event.service.spi.EventListenerRegistry;
import org.hibernate.event.spi.EventType;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.mapping.BasicValue;
import org.hibernate.mapping.JoinedSubclass;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.mapping.Property;
import org.hibernate.mapping.RootClass;
import org.hibernate.mapping.Table;
import org.hibernate.mapping.UnionSubclass;

/**
 * Checks the mapping of every entity with a {@link dev.fencedlock.jpa.FencingToken} field when a
 * session factory starts, and sets up what is enforced at runtime. Registered through {@code
 * META-INF/services/org.hibernate.integrator.spi.Integrator}.
 *
 * <ol>
 *   <li>Refused with a {@link MappingException} naming the entity: no {@code @Version} beside the
 *       fence (or a non-numeric one), the fence as the version, a fence that is not one basic,
 *       insertable and updatable column, no {@code @EntityListeners(FencingListener.class)} on the
 *       class or a superclass (listeners declared only in {@code orm.xml} are not seen), more than
 *       one table per entity, custom insert/update/delete SQL, {@code @OptimisticLocking(type = ALL/DIRTY)}, and bytecode-enhanced classes;
 *       on any entity, a {@code @FencingToken} field inside an embeddable ({@link EntityParts}).
 *   <li>The fence column is marked as a partition-key column: Hibernate then adds {@code fence = ?}
 *       (the value read) to the WHERE clause of every UPDATE and DELETE of the entity.
 *   <li>The entity's table and the tables its collections write (also inside embedded values; not
 *       a one-to-many child's table) are registered with the {@link FencedWriteInspector}, which
 *       refuses writes to them outside a fenced transaction.
 *   <li>Writes of fenced entities through a {@code StatelessSession} are refused ({@link
 *       StatelessWriteRefusal}): it runs no entity listener, so nothing would be stamped.
 * </ol>
 */
public final class FencingIntegrator implements Integrator {

    @Override
    public void integrate(Metadata metadata, BootstrapContext bootstrapContext, SessionFactoryImplementor factory) {
        Set<String> fencedEntities = new HashSet<>();
        FencedWriteInspector inspector = null;
        for (PersistentClass entity : metadata.getEntityBindings()) {
            Class<?> type = entity.getMappedClass();
            if (type == null) {
                continue;
            }
            Optional<FenceField> field;
            try {
                field = FenceField.of(type);
            } catch (IllegalArgumentException e) {
                throw new MappingException(e.getMessage(), e);
            }
            EntityParts.refuseFencesInEmbeddables(entity);
            if (field.isEmpty()) {
                continue;
            }
            if (inspector == null) {
                inspector = inspector(factory);
            }
            fence(entity, field.get(), inspector);
            fencedEntities.add(entity.getEntityName());
        }
        if (!fencedEntities.isEmpty()) {
            factory.addObserver(new ProtectedTablesCheck(
                    ProtectedTablesCheck.Mode.of(factory.getProperties().get(FencingSettings.PROTECTED_TABLES)),
                    inspector.fencedTables()));
            StatelessWriteRefusal refusal = new StatelessWriteRefusal(fencedEntities);
            EventListenerRegistry listeners = factory.getServiceRegistry().requireService(EventListenerRegistry.class);
            listeners.appendListeners(EventType.PRE_INSERT, refusal);
            listeners.appendListeners(EventType.PRE_UPDATE, refusal);
            listeners.appendListeners(EventType.PRE_UPSERT, refusal);
            listeners.appendListeners(EventType.PRE_DELETE, refusal);
        }
    }

    private static FencedWriteInspector inspector(SessionFactoryImplementor factory) {
        if (factory.getSessionFactoryOptions().getStatementInspector() instanceof FencedWriteInspector inspector) {
            return inspector;
        }
        throw new MappingException("fencing-jpa's statement inspector is not installed (hibernate.session_factory."
                + "statement_inspector is " + factory.getSessionFactoryOptions().getStatementInspector()
                + "); was the session factory's statement inspector replaced after the service registry was built?");
    }

    private static boolean hasFencingListener(Class<?> type) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            EntityListeners listeners = c.getAnnotation(EntityListeners.class);
            if (listeners != null && Arrays.asList(listeners.value()).contains(FencingListener.class)) {
                return true;
            }
        }
        return false;
    }

    private static void fence(PersistentClass entity, FenceField field, FencedWriteInspector inspector) {
        String name = entity.getEntityName();
        Class<?> type = entity.getMappedClass();
        if (ManagedEntity.class.isAssignableFrom(type)
                || PersistentAttributeInterceptable.class.isAssignableFrom(type)
                || SelfDirtinessTracker.class.isAssignableFrom(type)) {
            throw new MappingException("Fenced entity " + name + " is bytecode-enhanced: Hibernate's dirty tracking "
                    + "would not see the fence the listener stamps, so updates would keep the old fence. "
                    + "Exclude fenced entities from enhancement");
        }
        if (!hasFencingListener(type)) {
            throw new MappingException("Fenced entity " + name + " has a @FencingToken field but not "
                    + "@EntityListeners(FencingListener.class) on its class or a superclass: its fence would never "
                    + "be stamped");
        }
        Property property = entity.getPropertyClosure().stream()
                .filter(p -> p.getName().equals(field.name()))
                .findFirst()
                .orElseThrow(() -> new MappingException("@FencingToken field " + field + " of entity " + name
                        + " is not persistent; remove @Transient"));
        if (!entity.isVersioned()) {
            throw new MappingException("Fenced entity " + name + " has no @Version: a fenced entity needs one beside "
                    + "its @FencingToken field, so that two writes under one token and a detached copy merged over a "
                    + "newer write are refused; add e.g. '@Version long version' (see docs/fencing-jpa.md)");
        }
        Property version = entity.getVersion();
        if (version.getName().equals(field.name())) {
            throw new MappingException("@FencingToken field " + field + " of entity " + name
                    + " is also its @Version; keep the version in a separate field");
        }
        Class<?> versionType = version.getType().getReturnedClass();
        if (versionType != Long.class && versionType != Integer.class && versionType != Short.class) {
            throw new MappingException("The @Version of fenced entity " + name + " is a " + versionType.getName()
                    + "; fenced entities need a numeric version (long, int or short), which fenced bulk updates "
                    + "increment");
        }
        if (!(property.getValue() instanceof BasicValue value) || value.getColumnSpan() != 1) {
            throw new MappingException(
                    "@FencingToken field " + field + " of entity " + name + " must map to exactly one basic column");
        }
        if (!property.isInsertable() || !property.isUpdatable()) {
            throw new MappingException(
                    "@FencingToken field " + field + " of entity " + name + " must be insertable and updatable");
        }
        RootClass root = entity.getRootClass();
        for (PersistentClass member : root.getSubclassClosure()) {
            // Hibernate restricts every table of the statement by the fence column's own table
            if (member instanceof JoinedSubclass || member instanceof UnionSubclass) {
                throw new MappingException("Fenced entity " + name + " is part of a "
                        + (member instanceof JoinedSubclass ? "JOINED" : "TABLE_PER_CLASS")
                        + " inheritance hierarchy (" + member.getEntityName()
                        + "); fenced entities must be mapped to a single table");
            }
        }
        if (!entity.getJoinClosure().isEmpty()) {
            throw new MappingException("Fenced entity " + name
                    + " has a secondary table; fenced entities must be mapped to a single table");
        }
        if (entity.getCustomSQLInsert() != null
                || entity.getCustomSQLUpdate() != null
                || entity.getCustomSQLDelete() != null) {
            throw new MappingException("Fenced entity " + name
                    + " has custom SQL for insert, update or delete; the fence condition cannot be added to it");
        }
        if (root.getOptimisticLockStyle().isAllOrDirty()) {
            throw new MappingException("Fenced entity " + name + " uses @OptimisticLocking(type = "
                    + root.getOptimisticLockStyle() + "); fenced entities use their @Version");
        }

        value.setPartitionKey(true);
        inspector.fence(
                entity.getTable().getName(),
                version.getColumns().get(0).getName(),
                root.getSoftDeleteColumn() == null
                        ? null
                        : root.getSoftDeleteColumn().getName());
        for (Table table : EntityParts.collectionTables(entity)) {
            inspector.fence(table.getName(), null);
        }
    }
}
