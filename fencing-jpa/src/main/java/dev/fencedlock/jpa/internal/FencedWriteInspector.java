package dev.fencedlock.jpa.internal;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.hibernate.resource.jdbc.spi.StatementInspector;

/**
 * Refuses statements that write fenced tables outside a fenced transaction. Hibernate passes every
 * statement it prepares through here, whatever produced it: entity and collection persisters,
 * JPQL and Criteria bulk statements, native SQL. A statement that writes a fenced entity's table or
 * one of its collection tables must run in a transaction whose guard ran for the lease bound now
 * ({@link OpenTransactions#requireFenced}), checked here against the thread's innermost
 * transaction and then, as the session prepares the statement, against that session's own
 * transaction ({@link TransactionGuard}); an UPDATE of a fenced entity's table must also
 * change its version column, so that copies read before it fail their version check later (except
 * Hibernate's soft delete of the entity, which sets only its soft-delete column). Any
 * other statement passes unchanged, after the application's own inspector if it has one.
 *
 * <p>Fenced tables are registered by {@link FencingIntegrator} as session factories start; one
 * service registry may serve several factories, whose fenced tables then all count. Thread-safe.
 */
final class FencedWriteInspector implements StatementInspector {
    private static final long serialVersionUID = 1L;

    private final StatementInspector application;
    /** Normalised table name to its version column, or to "" for a collection table. */
    private final Map<String, String> fencedTables = new ConcurrentHashMap<>();
    /** Normalised table name to the column Hibernate's {@code @SoftDelete} sets, for entity tables that have one. */
    private final Map<String, String> softDeleteColumns = new ConcurrentHashMap<>();
    /** What each SQL text writes, read once per text: Hibernate prepares the same few texts again and again. */
    private final StatementShapes shapes = new StatementShapes();

    FencedWriteInspector(StatementInspector application) {
        this.application = application;
    }

    /** Registers an entity table and its version column, or a collection table with {@code versionColumn} null. */
    void fence(String table, String versionColumn) {
        fencedTables.put(WrittenTables.normalise(table), versionColumn == null ? "" : versionColumn);
    }

    /**
     * Registers an entity table removed by soft delete: an UPDATE that assigns only {@code
     * softDeleteColumn} need not change the version. Hibernate's soft delete checks the version and
     * fence read, and every later load and update of the entity skips the row.
     */
    void fence(String table, String versionColumn, String softDeleteColumn) {
        fence(table, versionColumn);
        if (softDeleteColumn != null) {
            softDeleteColumns.put(WrittenTables.normalise(table), softDeleteColumn);
        }
    }

    Set<String> fencedTables() {
        return Set.copyOf(fencedTables.keySet());
    }

    @Override
    public String inspect(String sql) {
        OpenTransactions.preparing(null);
        String inspected = application == null ? sql : application.inspect(sql);
        if (inspected == null || fencedTables.isEmpty()) {
            return inspected;
        }
        String fencedWrite = null;
        StatementShape shape = shapes.of(inspected);
        if (shape.writtenTables().contains(WrittenTables.ANY_TABLE)) {
            fencedWrite = shape.writeDescription(WrittenTables.ANY_TABLE);
            OpenTransactions.requireFenced(fencedWrite);
        }
        for (String table : shape.writtenTables()) {
            String versionColumn = fencedTables.get(table);
            if (versionColumn == null) {
                continue;
            }
            fencedWrite = shape.writeDescription(table);
            OpenTransactions.requireFenced(fencedWrite);
            if (!versionColumn.isEmpty()
                    && shape.updatesLeavingVersion(table, versionColumn, softDeleteColumns.get(table))) {
                throw new IllegalStateException("An UPDATE of fenced table " + table
                        + " must change its version column "
                        + versionColumn + " [" + shape.shown() + "]: without it, a copy read before the update "
                        + "could later be written over it. Use Fencing.fencedUpdate, or 'update versioned' in JPQL");
            }
        }
        OpenTransactions.preparing(fencedWrite);
        return inspected;
    }
}
