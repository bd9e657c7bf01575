package dev.fencedlock.spring.internal;

import dev.fencedlock.spring.internal.FencedLockSchemaInitializer.Schema;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one fencedlock migration location with a Flyway of its own and its own history table.
 * Loaded only when Flyway is on the classpath.
 */
final class FlywaySchema {
    private static final Logger LOG = LoggerFactory.getLogger(FlywaySchema.class);

    private FlywaySchema() {}

    /**
     * @param tableExists whether the table exists already; without this Flyway's history it is
     *     taken as created by version 1, so that version 1 is not run again
     */
    static void migrate(Schema schema, boolean tableExists) {
        MigrateResult result = Flyway.configure(FlywaySchema.class.getClassLoader())
                .dataSource(schema.dataSource())
                .locations(schema.location())
                .table(schema.history())
                // the schema holds the application's tables: record a baseline instead of refusing it
                .baselineOnMigrate(true)
                .baselineVersion(tableExists ? "1" : "0")
                .baselineDescription("fencedlock baseline")
                .load()
                .migrate();
        if (result.migrationsExecuted > 0) {
            LOG.info(
                    "Applied {} fencedlock migration(s) from {} (history in {})",
                    result.migrationsExecuted,
                    schema.location(),
                    schema.history());
        }
    }
}
