package dev.fencedlock.jdbc;

import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.db.TestDatabase.Kind;
import java.sql.Connection;
import java.util.EnumMap;
import java.util.Map;

/**
 * One private schema per database for a test class, with the fence table from the module's own
 * migration and a counter table that fenced transactions read and write.
 */
final class FenceDatabases implements AutoCloseable {
    static final String MIGRATION = "classpath:db/fencedlock/migration";

    private final Map<Kind, TestDatabase> databases = new EnumMap<>(Kind.class);
    private final String prefix;

    FenceDatabases(String prefix) {
        this.prefix = prefix;
    }

    /** The schema on {@code kind}, created and migrated on first use. */
    synchronized TestDatabase get(Kind kind) {
        return databases.computeIfAbsent(kind, k -> {
            TestDatabase db = TestDatabase.create(k, prefix, 8).migrate(MIGRATION);
            db.execute("create table counter (id bigint not null primary key, counter_value bigint not null, "
                    + "last_writer bigint not null)");
            return db;
        });
    }

    /** The isolation levels every fenced case runs under; the first is the default on H2 and PostgreSQL, the second on MariaDB. */
    enum Isolation {
        READ_COMMITTED(Connection.TRANSACTION_READ_COMMITTED),
        REPEATABLE_READ(Connection.TRANSACTION_REPEATABLE_READ),
        SERIALIZABLE(Connection.TRANSACTION_SERIALIZABLE);

        final int level;

        Isolation(int level) {
            this.level = level;
        }
    }

    @Override
    public synchronized void close() {
        RuntimeException failure = null;
        for (TestDatabase db : databases.values()) {
            try {
                db.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        databases.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
