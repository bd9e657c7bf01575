package dev.fencedlock.spring.internal;

import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.core.env.Environment;

/**
 * The value of {@value #PROPERTY}, handed to fencing-jpa as the Hibernate setting {@value
 * #HIBERNATE_SETTING}: what start-up does about fenced entity tables that the database does not
 * protect. Stateless and thread-safe.
 */
public final class ProtectedTablesMode {
    /** The starter's property. */
    public static final String PROPERTY = "fencedlock.protected-tables";

    /** fencing-jpa's Hibernate setting ({@code dev.fencedlock.jpa.FencingSettings.PROTECTED_TABLES}). */
    public static final String HIBERNATE_SETTING = "fencedlock.jpa.protected-tables";

    /** The values, as fencing-jpa reads them. */
    public static final List<String> VALUES = List.of("require", "warn", "protect", "off");

    private ProtectedTablesMode() {}

    /**
     * The configured value; when none is set, {@code protect} where {@code
     * fencedlock.initialize-schema} applies to {@code dataSource} (an embedded database under the
     * default {@code embedded}, any under {@code always}: the application's schema is created at
     * start-up, so protecting it there is expected), else {@code require}.
     *
     * @param dataSource the application's DataSource; null for none
     * @throws IllegalArgumentException naming {@value #PROPERTY} and the accepted values for any
     *     other value
     */
    public static String resolve(Environment environment, DataSource dataSource) {
        Binder binder = Binder.get(environment);
        String configured = binder.bind(PROPERTY, String.class).orElse(null);
        if (configured != null) {
            String value = configured.trim().toLowerCase(Locale.ROOT);
            if (!VALUES.contains(value)) {
                throw new IllegalArgumentException(
                        PROPERTY + " must be one of " + VALUES + ", got '" + configured + "'");
            }
            return value;
        }
        DatabaseInitializationMode mode = binder.bind(
                        SpringLockConfig.INITIALIZE_SCHEMA, DatabaseInitializationMode.class)
                .orElse(DatabaseInitializationMode.EMBEDDED);
        boolean initialized = mode == DatabaseInitializationMode.ALWAYS
                || (mode == DatabaseInitializationMode.EMBEDDED
                        && dataSource != null
                        && EmbeddedDatabaseConnection.isEmbedded(dataSource));
        return initialized ? "protect" : "require";
    }
}
