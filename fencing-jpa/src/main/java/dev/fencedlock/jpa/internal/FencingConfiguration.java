package dev.fencedlock.jpa.internal;

import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.jpa.FencingSettings;
import java.util.Locale;
import java.util.Map;

/** Reads {@link FencingSettings} from Hibernate's settings. Stateless. */
final class FencingConfiguration {
    private FencingConfiguration() {}

    /**
     * The fence table the settings ask for.
     *
     * @throws IllegalArgumentException if {@link FencingSettings#LOCK_FENCE_TABLE} is not a table
     *     name, or the retired {@link FencingSettings#LOCK_FENCE} is anything but {@code true}
     */
    @SuppressWarnings("deprecation")
    static FenceTable table(Map<String, Object> settings) {
        Object lockFence = settings.get(FencingSettings.LOCK_FENCE);
        if (lockFence != null
                && !lockFence.toString().trim().toLowerCase(Locale.ROOT).equals("true")) {
            throw new IllegalArgumentException(FencingSettings.LOCK_FENCE + " is retired and can no longer be '"
                    + lockFence + "': every transaction begun with a lease bound now runs the fence guard, which "
                    + "needs the fencedlock_fence table (Flyway location classpath:db/fencedlock/migration). "
                    + "Remove the setting; see docs/fencing-jpa.md, 'Migrating from the lock fence'");
        }
        Object table = settings.get(FencingSettings.LOCK_FENCE_TABLE);
        if (table == null) {
            return FenceTable.standard();
        }
        try {
            return FenceTable.named(table.toString().trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    FencingSettings.LOCK_FENCE_TABLE + ": " + e.getMessage() + " (value '" + table + "')", e);
        }
    }
}
