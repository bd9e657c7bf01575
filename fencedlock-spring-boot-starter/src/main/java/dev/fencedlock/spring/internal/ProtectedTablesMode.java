package dev.fencedlock.spring.internal;

import java.util.List;
import java.util.Locale;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The value of {@value #PROPERTY}, handed to fencing-jpa as the Hibernate setting {@value
 * #HIBERNATE_SETTING}: what start-up does about fenced entity tables that the database does not
 * protect. Stateless and thread-safe.
 */
final class ProtectedTablesMode {
    /** The starter's property. */
    public static final String PROPERTY = "fencedlock.protected-tables";

    /** fencing-jpa's Hibernate setting ({@code dev.fencedlock.jpa.FencingSettings.PROTECTED_TABLES}). */
    public static final String HIBERNATE_SETTING = "fencedlock.jpa.protected-tables";

    /** The values, as fencing-jpa reads them. */
    public static final List<String> VALUES = List.of("require", "warn", "protect", "off");

    /** The value when none is configured. */
    public static final String DEFAULT = "warn";

    private ProtectedTablesMode() {}

    /**
     * The configured value, else {@value #DEFAULT}: start-up names the fenced tables the database
     * does not protect and how to protect them, without failing ({@code require} fails, {@code
     * protect} protects them, for schemas created at start-up).
     *
     * @throws IllegalArgumentException naming {@value #PROPERTY} and the accepted values for any
     *     other value
     */
    public static String resolve(Environment environment) {
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
        return DEFAULT;
    }
}
