package dev.fencedlock.spring.receiver;

import org.springframework.data.jpa.repository.JpaRepository;

public interface Parcels extends JpaRepository<Parcel, String> {}
