package dev.fencedlock.faults;

import dev.fencedlock.faults.db.FaultDatabase;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A private {@link FaultDatabase} for one test class, created before its tests and dropped after
 * them. Register it on a {@code static} field with {@code @RegisterExtension}.
 */
final class FaultDatabaseExtension implements BeforeAllCallback, AfterAllCallback {
    private volatile FaultDatabase database;

    FaultDatabase get() {
        FaultDatabase current = database;
        if (current == null) {
            throw new IllegalStateException("the database is created before all tests; register the extension on a"
                    + " static field with @RegisterExtension");
        }
        return current;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        database = FaultDatabase.create();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        FaultDatabase current = database;
        database = null;
        if (current != null) {
            current.close();
        }
    }
}
