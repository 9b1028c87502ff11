/// Calendar arithmetic without a calendar, for the date parsers (HTTP-dates, cookie dates), which
/// must not depend on the locale or time zone of the machine.
package enum CivilDate {
    /// Days from 1970-01-01 to `year`-`month`-`day` in the proleptic Gregorian calendar (Howard
    /// Hinnant's `days_from_civil`).
    package static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
