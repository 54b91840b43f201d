extension ManagedObject {
    /// What `validateForInsert()` and `validateForUpdate()` check when called by the application
    /// (a save checks the same itself): the model's rules and every `validateValue(_:forKey:)`.
    func validateAsSaved() throws {
        // A save calls this for every new or changed object of a subclass: it checks the rules itself.
        if isUnderValidation { return }
        guard let context = managedObjectContext else {
            // Without a context there is no graph to count relationships in: attributes only.
            var failures: [ValidationFailure] = []
            for (index, property) in entity.properties.enumerated() where property is AttributeDescription {
                failures += Validation.failures(forValue: values[index].value, key: property.name, of: self)
            }
            if !failures.isEmpty { throw ValidationError(failures: failures) }
            return
        }
        if faultFlag { context.fireFault(self) }
        let failures = Validation.failures(of: self)
        if !failures.isEmpty { throw ValidationError(failures: failures) }
    }
}
