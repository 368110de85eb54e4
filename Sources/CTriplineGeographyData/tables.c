// Accessors for the tables that geography.S embeds, so that Swift sees a plain function, not asm symbols.
#include "CTriplineGeographyData.h"

extern const unsigned char tripline_geo_zones[], tripline_geo_countries[], tripline_geo_places[], tripline_geo_base[];
extern const unsigned long long tripline_geo_zones_size, tripline_geo_countries_size, tripline_geo_places_size,
    tripline_geo_base_size;

const unsigned char *tripline_geography_table(int which, size_t *size) {
    switch (which) {
    case 0: *size = (size_t)tripline_geo_zones_size; return tripline_geo_zones;
    case 1: *size = (size_t)tripline_geo_countries_size; return tripline_geo_countries;
    case 2: *size = (size_t)tripline_geo_places_size; return tripline_geo_places;
    case 3: *size = (size_t)tripline_geo_base_size; return tripline_geo_base;
    default: *size = 0; return NULL;
    }
}
