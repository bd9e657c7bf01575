package dev.fencedlock.jpa.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import org.hibernate.MappingException;
import org.hibernate.SessionFactory;
import org.hibernate.SessionFactoryObserver;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.cfg.JdbcSettings;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.jdbc.Expectation;
import org.hibernate.mapping.BasicValue;
import org.hibernate.mapping.JoinedSubclass;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.mapping.Property;
import org.hibernate.mapping.RootClass;
import org.hibernate.mapping.UnionSubclass;
import org.hibernate.tool.schema.spi.SchemaManagementException;

/**
 * Makes Hibernate enforce the fence of every entity with a {@link
 * dev.fencedlock.jpa.FencingToken} field, before the session factory builds its persisters.
 * Registered through {@code META-INF/services/org.hibernate.integrator.spi.Integrator}, so an entity
 * needs nothing beyond the field and the listener.
 *
 * <ol>
 *   <li>The fence column is marked as a partition key column. Hibernate then adds {@code fence = ?}
 *       to the WHERE clause of every UPDATE and DELETE of the entity and binds the value from the
 *       session's snapshot of the row, that is the fence value this transaction read; the SET
 *       clause writes the stamped token. The row is therefore written only if it still holds
 *       what was read, decided by the database in the same statement.
 *   <li>The root class gets {@link FencedStateManagement}, whose coordinators check the lease and
 *       the read before each statement and translate the database's refusals.
 *   <li>Fenced statements are not JDBC-batched, so that a refusal surfaces at the statement that
 *       caused it, while the entity and its id are known.
 * </ol>
 *
 * <p>Marking the column as a partition key happens after the primary key was built, so schema
 * generation does not add the fence column to the primary key.
 *
 * <p>The settings of {@link dev.fencedlock.jpa.FencingSettings} are validated here. With the lock
 * fence on, its table is checked once the factory is built (unless JDBC access on boot is switched
 * off, {@code hibernate.boot.allow_jdbc_metadata_access=false}; the first commit then reports a
 * missing table).
 */
public final class FencingIntegrator implements Integrator {

    @Override
    public void integrate(Metadata metadata, BootstrapContext bootstrapContext, SessionFactoryImplementor factory) {
        LockFence lockFence = LockFence.of(factory);
        if (lockFence.isOn() && jdbcAccessAllowedOnBoot(factory.getProperties())) {
            // after the schema tooling, which runs as an earlier observer, could have created it
            factory.addObserver(new SessionFactoryObserver() {
                @Override
                public void sessionFactoryCreated(SessionFactory created) {
                    requireTable(factory, lockFence);
                }
            });
        }
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
            if (field.isPresent()) {
                fence(entity, field.get());
            }
        }
    }

    private static void fence(PersistentClass entity, FenceField field) {
        String name = entity.getEntityName();
        Property property = entity.getPropertyClosure().stream()
                .filter(p -> p.getName().equals(field.name()))
                .findFirst()
                .orElseThrow(() -> new MappingException("@FencingToken field " + field + " of entity " + name
                        + " is not persistent; remove @Transient"));
        if (entity.isVersioned() && entity.getVersion().getName().equals(field.name())) {
            throw new MappingException("@FencingToken field " + field + " of entity " + name
                    + " is also its @Version; keep the version in a separate field");
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
                    + root.getOptimisticLockStyle() + "); use a @Version column or none");
        }
        var stateManagement = root.getStateManagementType();
        if (stateManagement != null && stateManagement != FencedStateManagement.class) {
            throw new MappingException("Fenced entity " + name + " uses " + stateManagement.getSimpleName()
                    + " (soft delete, temporal or audit tables), which fencing does not support");
        }

        value.setPartitionKey(true);
        root.setStateManagementType(FencedStateManagement.class);
        entity.setInsertExpectation(UnbatchedRowCount::new);
        entity.setUpdateExpectation(UnbatchedRowCount::new);
        entity.setDeleteExpectation(UnbatchedRowCount::new);
    }

    private static boolean jdbcAccessAllowedOnBoot(Map<String, Object> settings) {
        Object allowed = settings.get(JdbcSettings.ALLOW_METADATA_ON_BOOT);
        return allowed == null || !allowed.toString().trim().equalsIgnoreCase("false");
    }

    private static void requireTable(SessionFactoryImplementor factory, LockFence lockFence) {
        var access = factory.getJdbcServices().getBootstrapJdbcConnectionAccess();
        Connection connection;
        try {
            connection = access.obtainConnection();
        } catch (SQLException e) {
            throw new SchemaManagementException(
                    "Cannot check the lock-fence table '" + lockFence.table() + "': no connection", e);
        }
        try {
            lockFence.requireTable(connection);
        } finally {
            try {
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
                access.releaseConnection(connection);
            } catch (SQLException e) {
                // the check's outcome stands; a connection that cannot be returned is the pool's concern
            }
        }
    }

    /** One row per statement, as Hibernate's default, and never part of a JDBC batch. */
    static final class UnbatchedRowCount extends Expectation.RowCount {
        @Override
        public boolean canBeBatched() {
            return false;
        }
    }
}
