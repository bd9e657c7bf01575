package dev.fencedlock.jpa;

import jakarta.persistence.EntityManagerFactory;
import java.util.Map;
import org.hibernate.engine.spi.ManagedEntity;

/**
 * Starts a persistence unit with {@link EnhancedItem} in a JVM whose class path puts a
 * bytecode-enhanced copy of that class first, as build-time enhancement would. Run by {@code
 * FencingIntegratorTest}; prints whether the class it loaded is enhanced, then the start's failure
 * messages (root cause last).
 *
 * <p>Exit status: 0 when the start was refused, 2 when the unit started, 3 when the class on the
 * class path was not enhanced (the test's set-up is wrong).
 */
final class EnhancedEntityBoot {
    private EnhancedEntityBoot() {}

    public static void main(String[] args) {
        boolean enhanced = ManagedEntity.class.isAssignableFrom(EnhancedItem.class);
        System.out.println("enhanced: " + enhanced);
        if (!enhanced) {
            System.exit(3);
        }
        try (EntityManagerFactory emf = FencingIntegratorTest.start(Map.of(), true, EnhancedItem.class)) {
            System.out.println("started: the enhanced fenced entity was accepted");
            System.exit(2);
        } catch (RuntimeException e) {
            System.out.println(FencingIntegratorTest.rootCauseMessages(e));
            System.exit(0);
        }
    }
}
