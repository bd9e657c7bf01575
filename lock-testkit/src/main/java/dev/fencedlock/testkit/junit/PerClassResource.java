package dev.fencedlock.testkit.junit;

import java.util.Objects;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One test fixture (a database schema, a server) for a whole test class: created before its first
 * test, closed after its last, failed tests included.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final PerClassResource<TestDatabase> db =
 *         PerClassResource.of(() -> TestDatabase.create(Kind.H2).migrate("classpath:db/app"));
 * ... db.get().dataSource() ...
 * }</pre>
 *
 * <p>Register it on a {@code static} field: JUnit calls the class-level callbacks only there.
 * {@link #get()} may be called from any thread while the tests run.
 *
 * @param <T> the fixture
 */
public final class PerClassResource<T extends AutoCloseable> implements BeforeAllCallback, AfterAllCallback {
    private final Supplier<? extends T> factory;
    private volatile T resource;

    private PerClassResource(Supplier<? extends T> factory) {
        this.factory = factory;
    }

    /** A fixture made by {@code factory} before all tests of the class. */
    public static <T extends AutoCloseable> PerClassResource<T> of(Supplier<? extends T> factory) {
        return new PerClassResource<>(Objects.requireNonNull(factory, "factory"));
    }

    /**
     * The fixture.
     *
     * @throws IllegalStateException outside the class's tests, e.g. when the extension is not
     *     registered on a static field
     */
    public T get() {
        T current = resource;
        if (current == null) {
            throw new IllegalStateException("the fixture exists while the class's tests run; register the "
                    + "extension on a static field with @RegisterExtension");
        }
        return current;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        resource = Objects.requireNonNull(factory.get(), "the factory returned null");
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        T current = resource;
        resource = null;
        if (current != null) {
            current.close();
        }
    }
}
