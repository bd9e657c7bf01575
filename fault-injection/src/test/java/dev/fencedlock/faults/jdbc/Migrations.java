package dev.fencedlock.faults.jdbc;

import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import dev.fencedlock.testkit.db.TestDatabase;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The application's database of the jdbc fault scenarios: the lock table and {@code
 * fencing-jdbc}'s fence table side by side, each migration with a history table of its own (both
 * are version 1), as docs/jdbc-backend.md advises.
 */
public final class Migrations {
    private Migrations() {}

    /** A private schema on {@code kind} with both tables. */
    public static TestDatabase database(TestDatabase.Kind kind) {
        TestDatabase database = TestDatabase.create(kind, "jdbcfault", 8);
        migrate(database.dataSource());
        return database;
    }

    /** Creates both tables in {@code dataSource}'s schema, beside whatever it holds. */
    static void migrate(DataSource dataSource) {
        run(dataSource, "classpath:db/fencedlock/migration", "fencedlock_schema_history");
        migrateLockTable(dataSource);
    }

    /** Creates the lock table in {@code dataSource}'s schema, beside whatever it holds. */
    public static void migrateLockTable(DataSource dataSource) {
        run(dataSource, JdbcLockSettings.MIGRATION_LOCATION, "fencedlock_lock_schema_history");
    }

    private static void run(DataSource dataSource, String location, String historyTable) {
        Flyway.configure()
                .dataSource(dataSource)
                .locations(location)
                .table(historyTable)
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
    }
}
