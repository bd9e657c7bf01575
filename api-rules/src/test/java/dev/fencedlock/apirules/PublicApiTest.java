package dev.fencedlock.apirules;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The published modules keep to {@code docs/api.md}: what is public there is listed there, what
 * is listed exists, internal packages are read only by their own module and its named friends, and
 * no two packages depend on each other in a cycle (a package and its own {@code spi} and
 * {@code internal} packages count as one).
 */
class PublicApiTest {

    /**
     * At most this many public types may sit in internal packages: in packages shared with friends,
     * or registered for {@link java.util.ServiceLoader}, which needs them public. The figure is
     * today's count; it may go down, never up.
     */
    private static final int MOST_PUBLIC_INTERNAL_TYPES = 13;

    private static final JavaClasses CLASSES = PublishedClasses.all();
    private static final ApiDocument API = ApiDocument.read();

    @Test
    void theRulesSeeEveryPublishedModule() {
        Set<String> modules = new TreeSet<>();
        CLASSES.forEach(type -> modules.add(PublishedClasses.moduleOf(type)));
        assertThat(modules)
                .containsExactlyInAnyOrder(
                        "lock-api",
                        "redlock-provider",
                        "zookeeper-provider",
                        "jdbc-provider",
                        "fencing-jdbc",
                        "fencing-jpa",
                        "fencedlock-spring-boot-starter",
                        "fencedlock-spring-boot-test",
                        "fencedlock-shedlock",
                        "fencedlock-spring-integration",
                        "lock-testkit",
                        "lock-testkit-faults");
    }

    @Test
    void everyPublicTypeOutsideInternalPackagesIsListed() {
        Set<String> unlisted = new TreeSet<>();
        for (JavaClass type : CLASSES) {
            if (PublishedClasses.isPublicTopLevel(type)
                    && !PublishedClasses.isInternal(type.getPackageName())
                    && !API.types().contains(type.getName())) {
                unlisted.add(type.getName() + " (" + PublishedClasses.moduleOf(type) + ")");
            }
        }
        assertThat(unlisted)
                .as("public types not listed in %s: list them there, or make them non-public", API.path())
                .isEmpty();
    }

    @Test
    void everyListedTypeIsPublic() {
        Set<String> stale = new TreeSet<>();
        for (String name : API.types()) {
            boolean isPublic = CLASSES.contain(name)
                    && CLASSES.get(name).getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.PUBLIC);
            if (!isPublic) {
                stale.add(name);
            }
        }
        assertThat(stale)
                .as("types listed in %s that are not public types of a published module", API.path())
                .isEmpty();
    }

    @Test
    void publicTypesInInternalPackagesAreFewAndSharedOrServices() {
        Set<String> services = PublishedClasses.serviceProviders();
        Set<String> publicInternal = new TreeSet<>();
        Set<String> notShared = new TreeSet<>();
        for (JavaClass type : CLASSES) {
            if (PublishedClasses.isPublicTopLevel(type) && PublishedClasses.isInternal(type.getPackageName())) {
                publicInternal.add(type.getName());
                if (API.friendsOf(type.getPackageName()).isEmpty() && !services.contains(type.getName())) {
                    notShared.add(type.getName());
                }
            }
        }
        assertThat(notShared)
                .as(
                        "public types in internal packages that %s shares with no friend and that are no"
                                + " ServiceLoader provider: make them package-private",
                        API.path())
                .isEmpty();
        assertThat(publicInternal).hasSizeLessThanOrEqualTo(MOST_PUBLIC_INTERNAL_TYPES);
    }

    @Test
    void internalPackagesAreReadOnlyByTheirModuleAndItsFriends() {
        Set<String> violations = new TreeSet<>();
        for (JavaClass origin : CLASSES) {
            String reader = PublishedClasses.moduleOf(origin);
            for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                JavaClass target = dependency.getTargetClass().getBaseComponentType();
                String targetPackage = target.getPackageName();
                if (!PublishedClasses.isInternal(targetPackage) || !CLASSES.contain(target.getName())) {
                    continue;
                }
                String owner = PublishedClasses.moduleOf(CLASSES.get(target.getName()));
                if (!owner.equals(reader) && !API.friendsOf(targetPackage).contains(reader)) {
                    violations.add(
                            reader + " reads " + target.getName() + " of " + owner + " (" + origin.getName() + ")");
                }
            }
        }
        assertThat(violations)
                .as("internal packages read by a module %s does not name as their friend", API.path())
                .isEmpty();
    }

    @Test
    void packagesFormNoCycle() {
        SlicesRuleDefinition.slices()
                .assignedFrom(byPackage())
                .should()
                .beFreeOfCycles()
                .check(CLASSES);
    }

    /**
     * A package together with its own {@code spi} and {@code internal} packages: an API's static
     * factory reaches its implementation, and the implementation and the SPI use the API's types,
     * so those three always refer to each other. Any other cycle is a design fault.
     */
    static String family(String packageName) {
        return packageName.replaceFirst("\\.(internal|spi)(\\..*)?$", "");
    }

    private static SliceAssignment byPackage() {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                return SliceIdentifier.of(family(javaClass.getPackageName()));
            }

            @Override
            public String getDescription() {
                return "packages of the published modules, each with its own spi and internal packages";
            }
        };
    }
}
